package io.ofinet.rdma;

/**
 * Whether the JVM is ending. A shutdown hook, registered with the first device, says so; from then
 * on no close waits for a peer, so that a process ends promptly on SIGTERM whatever its peers do,
 * also when the application closes ofinet from a shutdown hook of its own. The hook closes
 * nothing itself: closing at exit is where libfabric 1.17's rxm crashed on writes with immediate
 * data cut short (docs/PROTOCOL.md, "Write notices"), and a process that ends takes its resources
 * with it (the names of its shm endpoints in {@code /dev/shm} are removed by shm's own SIGTERM and
 * SIGINT handlers, and by the binding's hook at any end; docs/FABRIC.md). It stops the watchdog
 * and waits, up to {@link #WATCHDOG_EXIT_WAIT_MS}, for a look of its in progress to end, so that
 * the end does not cut the look's provider call short ({@link Watchdog}).
 */
final class Shutdown {
    private static final System.Logger LOG = System.getLogger(Shutdown.class.getName());
    /**
     * How long the end waits for the watchdog's look: a look is normally short; one that takes
     * longer is stuck (spinning on a dead peer's lock, say), and the end does not wait for it.
     */
    static final long WATCHDOG_EXIT_WAIT_MS = 2000;
    private static volatile boolean ending;
    private static boolean hooked;

    private Shutdown() {
    }

    /** Whether the JVM is ending: closes then do not wait for peers. */
    static boolean inProgress() {
        return ending;
    }

    /** Registers the hook, once. */
    static synchronized void watch() {
        if (!hooked) {
            hooked = true;
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(Shutdown::begin, "ofinet-shutdown"));
            } catch (IllegalStateException alreadyEnding) {
                ending = true;
            }
        }
    }

    /**
     * The JVM or the process is ending: from now on closes do not wait for peers and the watchdog
     * looks no more. Run by the hook, and by {@link Device#processEnding}. An interrupt does not cut
     * the wait short; it is kept for the caller.
     */
    static void begin() {
        ending = true;
        if (!BoundedWait.throughInterrupts(WATCHDOG_EXIT_WAIT_MS * 1_000_000L, Watchdog::awaitNoLook)) {
            // Said on stderr too: the JVM's logging may have been reset by its own hook.
            String message = "ofinet: the process ends while a look of the watchdog's has not ended after "
                    + WATCHDOG_EXIT_WAIT_MS + " ms";
            LOG.log(System.Logger.Level.WARNING, message);
            System.err.println(message);
        }
    }
}
