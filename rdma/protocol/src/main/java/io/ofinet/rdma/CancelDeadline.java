package io.ofinet.rdma;

/**
 * How long a close waits for the provider's answers to the cancels of tagged receives: {@code
 * peerTimeoutMs} from the first wait that needs it. A receive communicator's close has one of its
 * own; an endpoint's close shares one among all its receive communicators, so that several whose
 * cancels go unanswered hold it for one {@code peerTimeoutMs}, not one each.
 *
 * <p>Used by the one thread that closes.
 */
final class CancelDeadline {
    private final long timeoutNanos;
    private boolean started;
    private long deadline;

    CancelDeadline(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /** The deadline (System.nanoTime), set at the first call. */
    long get() {
        if (!started) {
            started = true;
            deadline = System.nanoTime() + timeoutNanos;
        }
        return deadline;
    }
}
