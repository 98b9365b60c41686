package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.ProcessCheck;

/**
 * Whether the peer of a connection is still there. Death is decided by evidence, silence by the
 * clock:
 *
 * <ul>
 *   <li>evidence condemns the peer at once: a destination of it that the engine condemns (an
 *       unreachable-peer error at a post or in a completion, a keepalive's too; on {@code
 *       ofi_rxm}, posts refused with nothing in flight: refused reconnects), and, when the peer
 *       runs on this host, its process having ended ({@link ProcessCheck}, looked at every {@link
 *       #PROCESS_CHECK_NANOS}). A keepalive failed otherwise (a reset connection, which rxm makes
 *       again at the next post) is no evidence: the next one goes in its turn;
 *   <li>silence fails a busy communicator only after {@code peerTimeoutMs}: one with requests
 *       outstanding that hears nothing from its peer — data, announcements, keepalives — for
 *       that long. The clock restarts when a communicator goes from idle to busy, so that a peer
 *       that was merely idle is not taken for dead, and a paused peer (SIGSTOP, a long GC) that
 *       comes back in time loses nothing.
 * </ul>
 *
 * <p>Every connected communicator sends a keepalive every {@link #KEEPALIVE_NANOS} (or a quarter of
 * the timeout when that is shorter). Keepalives and checks run from progress, which the endpoint's
 * watchdog drives while the application does not (the endpoint's watchdog).
 */
public final class PeerLiveness implements RmaOp.Owner, PeerQueue.Listener {
    private static final System.Logger LOG = System.getLogger(PeerLiveness.class.getName());

    /** A communicator as liveness sees it. */
    public interface Peered {
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

        /**
         * What the peer puts in the upper half of the CQ data of its signals, errors and announcements
         * to this communicator, chosen at random for the connection and given in the handshake.
         */
        int token();

        /** An arrival naming it was dropped as not from its peer. */
        void forgedArrival();
    }

    /** Keepalives go out this often, or at a quarter of the timeout when that is shorter. */
    public static final long KEEPALIVE_NANOS = 1_000_000_000L;
    /** How often a peer on this host is looked up in /proc. */
    public static final long PROCESS_CHECK_NANOS = 250_000_000L;

    private final Peered comm;
    private final long timeoutNanos;
    private final long keepaliveNanos;
    private long nextProcessCheckNanos;
    private final String what;
    private long lastHeardNanos;
    /** A request was posted with none outstanding: the next check restarts the silence clock. */
    private boolean silenceRestarts;
    private long lastKeepaliveNanos;
    private RdmaException dead;

    /** Why the peer is taken for dead, or null while it lives. */
    public RdmaException dead() {
        return dead;
    }

    /** A keepalive went out at {@code now}. */
    public void keepaliveSent(long now) {
        lastKeepaliveNanos = now;
    }

    public PeerLiveness(Peered comm, long timeoutMs, String what, long now) {
        this.comm = comm;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.keepaliveNanos = Math.min(KEEPALIVE_NANOS, timeoutNanos / 4);
        this.what = what;
        this.lastHeardNanos = now;
        this.lastKeepaliveNanos = now;
    }

    /**
     * This side did not listen for {@code nanos} (its endpoint was not progressed: a thread stuck in
     * a provider call, a pause of this process): the peer's silence meanwhile is no evidence, so
     * the silence clock skips that time.
     */
    public void notListening(long nanos, long now) {
        lastHeardNanos = Math.min(now, lastHeardNanos + nanos);
    }

    /** Something arrived from the peer in the step that began at {@code now}. */
    public void heard(long now) {
        lastHeardNanos = now;
        silenceRestarts = false;
    }

    /**
     * A request is being posted; with none outstanding before, the silence so far does not count:
     * it counts from the next check on (no later than a duty period after the post, so never longer
     * than it was).
     */
    public void posting() {
        if (comm.outstanding() == 0) {
            silenceRestarts = true;
        }
    }

    public boolean keepaliveDue(long now) {
        return dead == null && now - lastKeepaliveNanos >= keepaliveNanos;
    }

    /**
     * Checks the peer's process (when due and possible), then the silence: condemns the peer when
     * its process ended, or when a busy communicator heard nothing for too long.
     */
    public void check(long now) {
        if (dead == null && now - nextProcessCheckNanos >= 0) {
            nextProcessCheckNanos = now + PROCESS_CHECK_NANOS;
            Connection peer = comm.connection();
            String ended = peer.processEnded();
            if (ended != null) {
                // Every communicator of the connection's destinations hears of it through them.
                peer.condemn(new RdmaException(ErrorCategory.REMOTE, "peer " + peer.address() + ": " + ended));
            }
        }
        if (silenceRestarts) {
            lastHeardNanos = now;
            silenceRestarts = false;
        }
        if (dead == null) {
            comm.checkStalls(now, timeoutNanos);
        }
        if (dead == null && comm.outstanding() > 0 && now - lastHeardNanos > timeoutNanos) {
            condemn(new RdmaException(ErrorCategory.REMOTE, what + ": peer " + comm.connection().address()
                    + " sent nothing for " + timeoutNanos / 1_000_000 + " ms (peerTimeoutMs); it is presumed dead"));
        }
    }

    public void condemn(RdmaException cause) {
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

    /**
     * A keepalive failed: where the error says the peer cannot be reached, at the post or in its
     * completion, the engine condemns its destination, as for any operation; a reset connection
     * says nothing for sure of the peer.
     */
    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        LOG.log(System.Logger.Level.DEBUG, "{0}: a keepalive to peer {1} failed: {2}", what,
                comm.connection().address(), cause.getMessage());
    }
}
