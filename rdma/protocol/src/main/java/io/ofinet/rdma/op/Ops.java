package io.ofinet.rdma.op;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.progress.ProgressEngine;

/**
 * An endpoint's pooled data-path operations: made as they are first needed, up to a bound, and
 * submitted to its progress engine. What they post and complete is counted in its {@link OpCounts}.
 * Owned by the endpoint; its parts take operations here and the operations come back by
 * themselves when their owner has heard of them.
 */
public final class Ops {
    /** Data-path operations per endpoint at most. */
    private static final int MAX_OPS = 8192;

    private final ProgressEngine engine;
    private final OpCounts counts;
    private final boolean noticeBehindWrite;
    private final Freelist<RmaOp> pool;
    private boolean closed;

    /**
     * @param noticeBehindWrite whether a write's notice message is posted right behind the write
     *     (the provider keeps a sender's messages in order after its writes), else once the write
     *     has completed
     */
    public Ops(ProgressEngine engine, OpCounts counts, boolean noticeBehindWrite) throws RdmaException {
        this.engine = engine;
        this.counts = counts;
        this.noticeBehindWrite = noticeBehindWrite;
        this.pool = Freelist.<RmaOp>builder("data-path operations", (block, address) -> new RmaOp(this))
                .sizes(256, 256, MAX_OPS).hooks(engine::register, op -> { }).build();
    }

    /** A free operation, or null when all are in flight. */
    public RmaOp acquire() {
        try {
            return pool.acquire();
        } catch (RdmaException e) {
            return null;
        }
    }

    /** Takes {@code n} free operations into {@code into[0..n)}, all or none; false when short. */
    public boolean acquire(RmaOp[] into, int n) {
        for (int i = 0; i < n; i++) {
            into[i] = acquire();
            if (into[i] == null) {
                for (int k = 0; k < i; k++) {
                    release(into[k]);
                }
                return false;
            }
        }
        return true;
    }

    /** Returns an operation that was not submitted (one submitted comes back by itself). */
    public void release(RmaOp op) {
        if (!closed) {
            pool.release(op);
        }
    }

    /** Operations taken and not yet returned: in flight, or queued. */
    public int inUse() {
        return pool.allocated() - pool.available();
    }

    public OpCounts counts() {
        return counts;
    }

    void submit(RmaOp op, PeerQueue destination) {
        engine.submit(op, destination);
    }

    boolean noticeBehindWrite() {
        return noticeBehindWrite;
    }

    /** Stops taking operations back: the endpoint closes, the rails' completions no longer come. */
    public void close() {
        closed = true;
        pool.free();
    }
}
