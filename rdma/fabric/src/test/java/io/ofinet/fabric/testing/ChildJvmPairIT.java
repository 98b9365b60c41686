package io.ofinet.fabric.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ChildJvm#runPair} returns both outputs when both peers succeed; when one fails or hangs it
 * stops both at once and fails naming that side, with both outputs.
 */
@Timeout(120)
class ChildJvmPairIT {

    /**
     * Prints its first argument, then exits with its second, or waits forever where that is "hang";
     * a third argument waits that many milliseconds before exiting, for the other peer to have spoken.
     */
    public static final class Exiter {
        public static void main(String[] args) throws InterruptedException {
            System.out.println(args[0]);
            System.out.flush();
            if (args[1].equals("hang")) {
                Thread.sleep(Long.MAX_VALUE);
            }
            if (args.length > 2) {
                Thread.sleep(Long.parseLong(args[2]));
            }
            System.exit(Integer.parseInt(args[1]));
        }
    }

    private static ChildJvm.Spec peer(String says, String status, Duration bound) {
        return new ChildJvm.Spec(Exiter.class).args(says, status).bound(bound);
    }

    private static ChildJvm.Spec peer(String says, int status) {
        return peer(says, Integer.toString(status), Duration.ofSeconds(60));
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
        // The sender fails 3 s after it started: a failure stops both, and the receiver, a JVM of its
        // own that may start slower, has printed by then.
        ChildJvm.Spec failing = new ChildJvm.Spec(Exiter.class).args("sender failed", "3", "3000")
                .bound(Duration.ofSeconds(60));
        AssertionError e = assertThrows(AssertionError.class,
                () -> ChildJvm.runPair(peer("receiver here", 0), failing));
        assertTrue(e.getMessage().startsWith("the sender exited with 3\n"), e.getMessage());
        assertTrue(e.getMessage().contains("receiver here") && e.getMessage().contains("sender failed"),
                e.getMessage());
    }

    @Test
    void aFailingReceiverStopsTheSenderWaitingForIt() {
        long start = System.nanoTime();
        ChildJvm.Spec failing = new ChildJvm.Spec(Exiter.class).args("bind failed", "1", "3000")
                .bound(Duration.ofSeconds(60));
        AssertionError e = assertThrows(AssertionError.class, () -> ChildJvm.runPair(failing,
                peer("sender waiting", "hang", Duration.ofSeconds(90))));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(e.getMessage().startsWith("the receiver exited with 1\n"), e.getMessage());
        assertTrue(e.getMessage().contains("bind failed") && e.getMessage().contains("sender waiting"),
                e.getMessage());
        assertTrue(seconds < 60, "the sender was waited for to its bound: " + seconds + " s");
    }

    @Test
    void aPeerPastItsBoundIsNamed() {
        AssertionError e = assertThrows(AssertionError.class, () -> ChildJvm.runPair(
                peer("receiver waiting", "hang", Duration.ofSeconds(5)), peer("sender waiting", "hang",
                        Duration.ofSeconds(60))));
        assertTrue(e.getMessage().startsWith("the receiver exceeded its time bound\n"), e.getMessage());
        assertTrue(e.getMessage().contains("receiver waiting") && e.getMessage().contains("sender waiting"),
                e.getMessage());
    }
}
