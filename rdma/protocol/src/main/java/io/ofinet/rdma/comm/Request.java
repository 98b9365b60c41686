package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;

/**
 * An outstanding send, receive or flush. {@link #test} reports whether it is done; once it has
 * said so, or thrown its failure, the request goes back to its pool and must not be used again.
 * A failure of the endpoint's progress that {@code test} throws before the request has finished
 * leaves it outstanding ({@link #inUse}).
 */
public abstract class Request {
    /** The pool it returns to once reported (null: made outside a pool, by a test). */
    private final RequestPool<?> home;
    /** The communicator whose endpoint drives it (null: made outside one, by a test). */
    private final Communicator<?> comm;
    private int pendingOps;
    /** Bumped at each reuse, so that a late completion of an earlier use is ignored. */
    private int generation;
    private boolean done;
    private RdmaException failure;
    /** Taken from its pool and not given back (see {@link RequestPool#give}). */
    boolean inUse;

    /**
     * Whether it is done, after one step of progress (none when it was done already); when it is, receives write each buffer's
     * received size into {@code sizes} (when not null), and the request returns to its pool.
     *
     * @throws RdmaException the operation's failure, the request then finished too; or a failure of
     *     the endpoint's progress step before the request finished, which leaves it outstanding
     *     ({@link #inUse})
     */
    public final boolean test(long[] sizes) throws RdmaException {
        CommHost host = comm.host();
        host.lock();
        if (Timeline.ON) {
            Timeline.testing((int) (timelineName() >> 32));
        }
        try {
            // A request done already (an eager send, a receive whose message was held) needs no step.
            if (!finished()) {
                host.progressLocked();
                if (!finished()) {
                    return false;
                }
            }
            if (Timeline.ON) {
                long name = timelineName();
                Timeline.record(Timeline.DONE, (int) (name >> 32), (int) name);
            }
            reportSizes(sizes);
            RdmaException f = failure;
            release();
            if (f != null) {
                throw f;
            }
            return true;
        } finally {
            if (Timeline.ON) {
                Timeline.testing(-1);
            }
            host.unlock();
        }
    }

    /**
     * What names it in {@link Timeline}'s lines: its tag in the upper 32 bits, its ordinal in the
     * lower (of its first buffer, for a receive); -1 unknown.
     */
    protected long timelineName() {
        return -1;
    }

    /** Takes it from its pool for a new use that waits for {@code operations} operations. */
    public void begin(int operations) {
        pendingOps = operations;
        done = false;
        failure = null;
        inUse = true;
        generation++;
    }

    protected Request(Communicator<?> comm, RequestPool<?> home) {
        this.comm = comm;
        this.home = home;
    }

    /** Returns the request to its communicator's pool. */
    public final void release() {
        if (home != null) {
            home.give(this);
        }
    }

    /** Writes the sizes received, for receives. */
    protected void reportSizes(long[] sizes) {
    }

    /** One of the request's operations completed. */
    public void operationDone() {
        if (--pendingOps == 0 && failure == null) {
            done = true;
        }
    }

    /** One of the request's operations failed: the request fails with {@code cause}. */
    public void operationFailed(RdmaException cause) {
        pendingOps--;
        fail(cause);
    }

    public void fail(RdmaException cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    /** Fails it at once, abandoning what is in flight (the peer is gone). */
    public void abandon(RdmaException cause) {
        fail(cause);
        pendingOps = 0;
        generation++;
    }

    public int generation() {
        return generation;
    }

    /** Done or failed, with nothing of it still in flight. */
    public boolean finished() {
        return pendingOps == 0 && (done || failure != null);
    }

    /** Whether it is taken from its pool (outstanding), as opposed to free. */
    public boolean inUse() {
        return inUse;
    }

    /** Its operations still in flight. */
    public int pendingOps() {
        return pendingOps;
    }

    /** It now waits for {@code operations} operations (its writes, once they are taken). */
    public void awaitOperations(int operations) {
        pendingOps = operations;
    }

    /** It waits for one operation more. */
    public void awaitOneMore() {
        pendingOps++;
    }

    /** Its failure, or null. */
    public RdmaException failure() {
        return failure;
    }

    /** It is done as far as its own work goes (it may still wait for operations in flight). */
    protected final void markDone() {
        done = true;
    }

    /** One of its operations ended, with no effect on whether it is done. */
    protected final void operationEnded() {
        pendingOps--;
    }

    /** Whether it completed without failure (its operations may still be in flight). */
    public boolean succeeded() {
        return done && failure == null;
    }
}
