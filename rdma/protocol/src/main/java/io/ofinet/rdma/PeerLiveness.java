package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;

/**
 * Whether the peer of a connection is still there, judged by ofinet itself rather than by the
 * provider: every connected communicator sends a keepalive every quarter of {@code peerTimeoutMs}
 * from progress, anything that arrives from the peer counts as hearing from it, and a
 * communicator with requests outstanding that hears nothing for {@code peerTimeoutMs} fails them
 * with a remote error. The clock restarts when a communicator goes from idle to busy, so that a
 * peer that was merely idle (and not calling into ofinet) is not taken for dead. A keepalive the
 * provider fails to deliver condemns the peer at once.
 */
final class PeerLiveness implements RmaOp.Owner, PeerQueue.Listener {

    /** A communicator as liveness sees it. */
    interface Peered {
        PeerLiveness liveness();

        /** Requests posted and not yet returned by {@code test}. */
        int outstanding();

        /** The peer is gone: fail everything outstanding, and what is posted later. */
        void peerDead(RdmaException cause);

        boolean connectedAndOpen();

        /** Fails requests whose own operations have stalled past the timeout. */
        void checkStalls(long now, long timeoutNanos);

        /** The peer: its id, addresses and destination queues. */
        Connection connection();
    }

    private final Peered comm;
    private final long timeoutNanos;
    private final String what;
    long lastHeardNanos;
    long lastKeepaliveNanos;
    RdmaException dead;

    PeerLiveness(Peered comm, long timeoutMs, String what, long now) {
        this.comm = comm;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.what = what;
        this.lastHeardNanos = now;
        this.lastKeepaliveNanos = now;
    }

    void heard(long now) {
        lastHeardNanos = now;
    }

    /** A request is being posted; with none outstanding before, the silence so far does not count. */
    void posting(long now) {
        if (comm.outstanding() == 0) {
            lastHeardNanos = now;
        }
    }

    boolean keepaliveDue(long now) {
        return dead == null && now - lastKeepaliveNanos >= timeoutNanos / 4;
    }

    /** Checks the silence; condemns the peer when a busy communicator heard nothing for too long. */
    void check(long now) {
        if (dead == null) {
            comm.checkStalls(now, timeoutNanos);
        }
        if (dead == null && comm.outstanding() > 0 && now - lastHeardNanos > timeoutNanos) {
            condemn(new RdmaException(ErrorCategory.REMOTE, what + ": the peer sent nothing for "
                    + timeoutNanos / 1_000_000 + " ms (peerTimeoutMs); it is presumed dead"));
        }
    }

    void condemn(RdmaException cause) {
        if (dead == null) {
            dead = cause;
            comm.peerDead(cause);
        }
    }

    /** One of the peer's destinations was condemned: its posts stayed refused. */
    @Override
    public void condemned(RdmaException cause) {
        condemn(new RdmaException(ErrorCategory.REMOTE, what + ": " + cause.getMessage(), cause));
    }

    @Override
    public void opDone(RmaOp op) {
    }

    /** A keepalive could not be delivered. */
    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        condemn(new RdmaException(ErrorCategory.REMOTE, what + ": the peer is unreachable: " + cause.getMessage(),
                cause));
    }
}
