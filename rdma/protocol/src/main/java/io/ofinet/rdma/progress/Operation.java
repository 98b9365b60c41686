package io.ofinet.rdma.progress;

import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.error.RdmaException;

/**
 * A posted libfabric operation as the engine sees it: how to post it (again, after -FI_EAGAIN),
 * and what to do when it completes or fails. Operations are made once and reused; the engine
 * gives each an id, and the completion context is {@link #context()}.
 */
public abstract class Operation {
    private int id = -1;
    /** Where it was posted, while it is in flight there; null otherwise. */
    PeerQueue inFlightTo;

    final void assign(int operationId) {
        if (id >= 0) {
            throw new IllegalStateException("operation registered twice");
        }
        this.id = operationId;
    }

    /** The context posted with the operation: never 0, which marks remote-data completions. */
    public final long context() {
        if (id < 0) {
            throw new IllegalStateException("operation not registered with a progress engine");
        }
        return id + 1L;
    }

    /**
     * Posts it.
     *
     * @return {@link io.ofinet.fabric.Endpoint#POSTED} or {@link io.ofinet.fabric.Endpoint#AGAIN}
     */
    protected abstract int post() throws FabricException;

    /** It completed; {@code rail} is the engine's index of the queue it came from. */
    protected abstract void completed(int rail, long flags, long len, long data) throws RdmaException;

    /**
     * Completions the posted operation still awaits, this one included: the engine counts it in
     * flight to its peer until the last. One, unless one post put two on the wire (a write and its
     * notice).
     */
    protected int completionsAwaited() {
        return 1;
    }

    /** It failed: at posting, or with an error completion. */
    protected abstract void failed(RdmaException cause);

    /** A short name for messages, e.g. "handshake send on control rail 0". */
    protected abstract String describe();
}
