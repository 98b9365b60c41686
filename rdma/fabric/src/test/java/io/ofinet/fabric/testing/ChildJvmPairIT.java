package io.ofinet.fabric.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChildJvm#runPair} returns both outputs when both peers succeed; when one fails or hangs it
 * stops both at once and fails naming that side, with both outputs.
 */
@Timeout(120)
class ChildJvmPairIT {
    /** The name a peer publishes once it has printed. */
    static final String SPOKE = "spoke";

    /**
     * Prints its first argument, then exits with its second, or waits forever where that is "hang".
     * A third argument {@code signal=DIR} publishes {@link #SPOKE} in that directory's {@link
     * AddressExchange} once it has printed; {@code await=DIR} awaits it there (a minute at most)
     * before exiting: a peer that fails waits so for the other to have spoken, however slowly its JVM
     * started.
     */
    public static final class Exiter {
        public static void main(String[] args) throws Exception {
            System.out.println(args[0]);
            System.out.flush();
            if (args.length > 2 && args[2].startsWith("signal=")) {
                new AddressExchange(Path.of(args[2].substring("signal=".length()))).publish(SPOKE, "1");
            }
            if (args.length > 2 && args[2].startsWith("await=")) {
                new AddressExchange(Path.of(args[2].substring("await=".length()))).await(SPOKE, Duration.ofMinutes(1));
            }
            if (args[1].equals("hang")) {
                Thread.sleep(Long.MAX_VALUE);
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
    void aFailingSenderIsNamedWithBothOutputs(@TempDir Path dir) {
        // The sender fails once the receiver has printed: a failure stops both at once.
        ChildJvm.Spec failing = new ChildJvm.Spec(Exiter.class).args("sender failed", "3", "await=" + dir)
                .bound(Duration.ofSeconds(60));
        ChildJvm.Spec receiver = new ChildJvm.Spec(Exiter.class).args("receiver here", "0", "signal=" + dir)
                .bound(Duration.ofSeconds(60));
        AssertionError e = assertThrows(AssertionError.class, () -> ChildJvm.runPair(receiver, failing));
        assertTrue(e.getMessage().startsWith("the sender exited with 3\n"), e.getMessage());
        assertTrue(e.getMessage().contains("receiver here") && e.getMessage().contains("sender failed"),
                e.getMessage());
    }

    @Test
    void aFailingReceiverStopsTheSenderWaitingForIt(@TempDir Path dir) {
        long start = System.nanoTime();
        ChildJvm.Spec failing = new ChildJvm.Spec(Exiter.class).args("bind failed", "1", "await=" + dir)
                .bound(Duration.ofSeconds(60));
        ChildJvm.Spec sender = new ChildJvm.Spec(Exiter.class).args("sender waiting", "hang", "signal=" + dir)
                .bound(Duration.ofSeconds(90));
        AssertionError e = assertThrows(AssertionError.class, () -> ChildJvm.runPair(failing, sender));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertTrue(e.getMessage().startsWith("the receiver exited with 1\n"), e.getMessage());
        assertTrue(e.getMessage().contains("bind failed") && e.getMessage().contains("sender waiting"),
                e.getMessage());
        assertTrue(seconds < 60, "the sender was waited for to its bound: " + seconds + " s");
    }

    /** The receiver's bound leaves both JVMs time to start and speak on a loaded machine (normally under 1 s). */
    @Test
    void aPeerPastItsBoundIsNamed() {
        AssertionError e = assertThrows(AssertionError.class, () -> ChildJvm.runPair(
                peer("receiver waiting", "hang", Duration.ofSeconds(15)), peer("sender waiting", "hang",
                        Duration.ofSeconds(60))));
        assertTrue(e.getMessage().startsWith("the receiver exceeded its time bound\n"), e.getMessage());
        assertTrue(e.getMessage().contains("receiver waiting") && e.getMessage().contains("sender waiting"),
                e.getMessage());
    }
}
