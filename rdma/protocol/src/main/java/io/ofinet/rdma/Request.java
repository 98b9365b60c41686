package io.ofinet.rdma;

/**
 * An outstanding send, receive or flush. {@link #test} reports whether it is done; once it has
 * said so, or thrown its failure, the request goes back to its pool and must not be used again.
 */
public abstract class Request {
    int pendingOps;
    /** Bumped at each reuse, so that a late completion of an earlier use is ignored. */
    int generation;
    boolean done;
    RdmaException failure;
    boolean inUse;

    /**
     * Whether it is done; when it is, receives write each buffer's received size into {@code
     * sizes} (when not null).
     *
     * @throws RdmaException the operation's failure; the request is then finished too
     */
    public abstract boolean test(long[] sizes) throws RdmaException;

    void fail(RdmaException cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    /** Fails it at once, abandoning what is in flight (the peer is gone). */
    void abandon(RdmaException cause) {
        fail(cause);
        pendingOps = 0;
        generation++;
    }

    public int generation() {
        return generation;
    }

    /** Done or failed, with nothing of it still in flight. */
    boolean finished() {
        return pendingOps == 0 && (done || failure != null);
    }
}
