package io.ofinet.fabric.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ChildJvm#runPair} returns both outputs when both peers succeed, and fails naming both when one does not. */
@Timeout(120)
class ChildJvmPairIT {

    /** Prints its first argument and exits with its second. */
    public static final class Exiter {
        public static void main(String[] args) {
            System.out.println(args[0]);
            System.out.flush();
            System.exit(Integer.parseInt(args[1]));
        }
    }

    private static ChildJvm.Spec peer(String says, int status) {
        return new ChildJvm.Spec(Exiter.class).args(says, Integer.toString(status)).bound(Duration.ofSeconds(60));
    }

    @Test
    void bothSucceeding() throws Exception {
        ChildJvm.PairOutput out = ChildJvm.runPair(peer("receiver here", 0), peer("sender here", 0));
        assertEquals("receiver here", out.receiver().strip());
        assertEquals("sender here", out.sender().strip());
        assertEquals("receiver:\nreceiver here\n\nsender:\nsender here\n", out.both());
    }

    @Test
    void aFailingSenderIsNamedWithBothOutputs() {
        AssertionError e = assertThrows(AssertionError.class,
                () -> ChildJvm.runPair(peer("receiver here", 0), peer("sender failed", 3)));
        assertTrue(e.getMessage().startsWith("the receiver exited with 0, the sender with 3"), e.getMessage());
        assertTrue(e.getMessage().contains("receiver here") && e.getMessage().contains("sender failed"),
                e.getMessage());
    }
}
