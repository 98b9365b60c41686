package io.ofinet.rdma.rail;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;

/**
 * A receive an endpoint keeps posted (control-rail buffers, zero-byte receives, eager buffers):
 * reposted after each arrival (at the start of the next step), unless what arrived stays in it
 * for later, and after a peer's message too large for it (FI_ETRUNC, dropped and counted as
 * malformed), so that no peer can leave the endpoint without posted receives; after any other
 * failure up to {@link #MAX_FAILURES_IN_A_ROW} in a row, past which the failure is the endpoint's
 * own and reposting would only repeat it.
 */
public abstract class KeptReceive extends Operation {
    /** What a kept receive needs of its endpoint. */
    public interface Host {
        /** Posts {@code receive} through the queue of posts to no peer on engine rail {@code engineRail}. */
        void submitLocal(Operation receive, int engineRail);

        /** Posts {@code receive} again at the start of the endpoint's next step ({@link RepostQueue}). */
        void repostNextStep(KeptReceive receive);

        /** Whether the endpoint is closed (its receives' failures then say nothing). */
        boolean closed();

        /** A peer's message too large for {@code receive} was dropped: counted as malformed. */
        void dropTruncated(String receive, RdmaException cause);
    }

    /** Failures of one posted receive in a row after which it is not posted again. */
    public static final int MAX_FAILURES_IN_A_ROW = 16;

    private static final System.Logger LOG = System.getLogger(KeptReceive.class.getName());

    private final Host host;
    /** Whether it waits in a {@link RepostQueue}, and the next in that queue (null: the last). */
    boolean repostQueued;
    KeptReceive nextRepost;
    private int failuresInARow;

    protected KeptReceive(Host host) {
        this.host = host;
    }

    /** The engine's index of the rail it is posted on (data rails first, then control rails). */
    public abstract int engineRail();

    /**
     * What arrived in it. Returns whether to post it again now: false when what arrived stays in
     * it for later (an eager message whose receive is not posted yet).
     */
    protected abstract boolean arrived(long flags, long len, long data);

    /** Posts it, through the queue of posts to no peer on its rail. */
    protected final void submit() {
        host.submitLocal(this, engineRail());
    }

    /** Posts it again after an arrival or a failure; a pooled receive asks its pool first. */
    public void repost() {
        submit();
    }

    /**
     * An arrival: handled now, and the receive posted again at the start of the endpoint's next
     * step, off the path from the arrival to the {@code test} that sees it.
     */
    @Override
    protected final void completed(int rail, long flags, long len, long data) {
        failuresInARow = 0;
        if (arrived(flags, len, data)) {
            host.repostNextStep(this);
        }
    }

    @Override
    protected final void failed(RdmaException cause) {
        if (host.closed()) {
            return;
        }
        if (cause.category() == ErrorCategory.REMOTE) {
            // A peer's message too large for it (FI_ETRUNC): the peer's fault, counted, never the end of it.
            host.dropTruncated(describe(), cause);
            repost();
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "{0} failed: {1}", describe(), cause.getMessage());
        if (++failuresInARow <= MAX_FAILURES_IN_A_ROW) {
            repost();
        }
    }
}
