package io.ofinet.rdma;

import io.ofinet.rdma.comm.Request;

/** How the tests wait for a request: its test (one progress step of its endpoint), other endpoints stepped, a bound. */
final class Await {
    /** Long enough for any request of a test; reached only when something is wrong. */
    static final long BOUND_NANOS = 30_000_000_000L;

    private Await() {
    }

    /**
     * Tests {@code request} until it is done, stepping {@code drive} between tests; its failure is
     * thrown, and an AssertionError naming {@code what} after {@link #BOUND_NANOS}.
     */
    static void done(Request request, long[] sizes, String what, RdmaEndpoint... drive) throws Exception {
        long deadline = System.nanoTime() + BOUND_NANOS;
        while (!request.test(sizes)) {
            for (RdmaEndpoint endpoint : drive) {
                endpoint.progress();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not done within " + BOUND_NANOS / 1_000_000_000L + " s");
            }
        }
    }
}
