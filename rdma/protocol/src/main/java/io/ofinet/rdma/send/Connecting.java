package io.ofinet.rdma.send;

import io.ofinet.rdma.error.RdmaException;

/**
 * A send communicator's connection while the handshake makes it: when connecting gives up,
 * whether its CONNECT went out, and why it failed, if it did. Touched only with the endpoint held.
 */
public final class Connecting {
    private final long deadlineNanos;
    private boolean sent;
    private RdmaException failure;

    Connecting(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /** When connecting gives up. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** The CONNECT went out. */
    public void sent() {
        sent = true;
    }

    /** The connection failed before it was made: refused, or the CONNECT did not go out; the first cause stays. */
    public void failed(RdmaException cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    /** Why the connection failed, or null. */
    public RdmaException failure() {
        return failure;
    }

    /** Whether the CONNECT went out and nothing failed. */
    boolean succeeded() {
        return sent && failure == null;
    }
}
