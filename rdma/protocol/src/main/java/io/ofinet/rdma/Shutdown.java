package io.ofinet.rdma;

/**
 * Whether the JVM is ending. A shutdown hook, registered with the first device, says so; from then
 * on no close waits for a peer, so that a process ends promptly on SIGTERM whatever its peers do,
 * also when the application closes ofinet from a shutdown hook of its own. The hook closes
 * nothing itself: closing at exit is where libfabric 1.17's rxm crashed on writes with immediate
 * data cut short (docs/PROTOCOL.md, "Write notices"), and a process that ends takes its resources
 * with it (the names of its shm endpoints in {@code /dev/shm} are removed by shm's own SIGTERM and
 * SIGINT handlers, and by the binding's hook at any end; docs/FABRIC.md).
 */
final class Shutdown {
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
                Runtime.getRuntime().addShutdownHook(new Thread(() -> ending = true, "ofinet-shutdown"));
            } catch (IllegalStateException alreadyEnding) {
                ending = true;
            }
        }
    }
}
