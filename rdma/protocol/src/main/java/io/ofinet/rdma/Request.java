package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;

/**
 * An outstanding send, receive or flush. {@link #test} reports whether it is done; once it has
 * said so, or thrown its failure, the request goes back to its pool and must not be used again.
 */
public abstract class Request {
    /** The pool it returns to once reported (null: made outside a pool, by a test). */
    private final RequestPool<?> home;
    int pendingOps;
    /** Bumped at each reuse, so that a late completion of an earlier use is ignored. */
    int generation;
    boolean done;
    RdmaException failure;
    boolean inUse;

    /**
     * Whether it is done, after one step of progress (none when it was done already); when it is, receives write each buffer's
     * received size into {@code sizes} (when not null), and the request returns to its pool.
     *
     * @throws RdmaException the operation's failure; the request is then finished too
     */
    public final boolean test(long[] sizes) throws RdmaException {
        RdmaEndpoint endpoint = endpoint();
        endpoint.lock();
        try {
            // A request done already (an eager send, a receive whose message was held) needs no step.
            if (!finished()) {
                endpoint.progressLocked();
                if (!finished()) {
                    return false;
                }
            }
            reportSizes(sizes);
            RdmaException f = failure;
            release();
            if (f != null) {
                throw f;
            }
            return true;
        } finally {
            endpoint.unlock();
        }
    }

    /** Takes it from its pool for a new use that waits for {@code operations} operations. */
    void begin(int operations) {
        pendingOps = operations;
        done = false;
        failure = null;
        inUse = true;
        generation++;
    }

    /** The endpoint that drives this request. */
    abstract RdmaEndpoint endpoint();

    Request(RequestPool<?> home) {
        this.home = home;
    }

    /** Returns the request to its communicator's pool. */
    final void release() {
        if (home != null) {
            home.give(this);
        }
    }

    /** Writes the sizes received, for receives. */
    void reportSizes(long[] sizes) {
    }

    /** One of the request's operations completed. */
    void operationDone() {
        if (--pendingOps == 0 && failure == null) {
            done = true;
        }
    }

    /** One of the request's operations failed: the request fails with {@code cause}. */
    void operationFailed(RdmaException cause) {
        pendingOps--;
        fail(cause);
    }

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
