package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/**
 * What of an endpoint is in use, for the close of one that its thread left behind
 * ({@link EndpointClosing#closeIfAbandoned}; docs/PROTOCOL.md, "Threading"): the thread it was
 * opened for, if any, and the buffers the application registered for it and has not deregistered.
 * The count is touched holding the endpoint; whether the thread has ended is read without it.
 */
final class EndpointUse {
    /** The thread the endpoint was opened for ({@link Device#endpointForCurrentThread}), or null. */
    private final Thread owner;
    private int userBuffers;
    /** Set, holding the endpoint, once it is found unused for good: what comes after is refused. */
    private volatile boolean abandoned;

    EndpointUse(Thread owner) {
        this.owner = owner;
    }

    void registered() {
        userBuffers++;
    }

    void deregistered() {
        userBuffers--;
    }

    /** From now on the endpoint closes as abandoned; the caller holds it. */
    void markAbandoned() {
        abandoned = true;
    }

    /** Whether the endpoint closes, or has closed, as abandoned ({@link #markAbandoned}). */
    boolean abandoned() {
        return abandoned;
    }

    /** Refuses a call (listen, connect, accept, a registration) on an endpoint closing as abandoned. */
    void requireNotAbandoned() throws RdmaException {
        if (abandoned) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closing: the thread it was opened"
                    + " for (" + ownerName() + ") has ended, and nothing of it was in use");
        }
    }

    /** Whether the endpoint was opened for a thread, and that thread has ended. */
    boolean ownerEnded() {
        return owner != null && !owner.isAlive();
    }

    /** The name of the thread the endpoint was opened for. */
    String ownerName() {
        return owner == null ? "(none)" : owner.getName();
    }

    /**
     * Whether nothing of the endpoint is in use at {@code now}: no buffer registered for it, no
     * listen, send or receive communicator, no connection being accepted, and no connection being
     * made but those a connect call has not taken within {@code connectionTimeoutMs}, which the
     * application gave up (an abort that ended NCCL's connect loop; the close closes them). The
     * caller holds the endpoint.
     */
    boolean unused(CommTable comms, Handshake handshake, long now) {
        return userBuffers == 0 && handshake.listens().isEmpty() && handshake.givenUp(now)
                && !comms.anyOpen(handshake::making);
    }
}
