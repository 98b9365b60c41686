package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Signal;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * How an endpoint's communicators close. A close that waits for its peer — a send communicator
 * draining its writes, a receive communicator waiting for the sender's confirmation — takes the
 * endpoint for one progress step at a time and lets it go in between, so that the other
 * communicators of the endpoint keep moving; it waits at most {@code peerTimeoutMs} for the peer,
 * and a receive communicator's as long again for the provider's answers to its cancels. The
 * endpoint's own close, which closes them all, is {@link EndpointClosing}'s.
 */
final class CommClosing {
    private static final System.Logger LOG = System.getLogger(CommClosing.class.getName());

    private final RdmaEndpoint endpoint;
    private final EndpointPools pools;
    private final CommTable comms;
    private final Handshake handshake;
    private final SlowDuties duties;
    private final long peerTimeoutNanos;
    private final SendClosing sends;

    CommClosing(RdmaEndpoint endpoint, EndpointPools pools, CommTable comms, Handshake handshake, SlowDuties duties,
            EndpointUse use, long peerTimeoutMs) {
        this.endpoint = endpoint;
        this.pools = pools;
        this.comms = comms;
        this.handshake = handshake;
        this.duties = duties;
        this.peerTimeoutNanos = peerTimeoutMs * 1_000_000L;
        this.sends = new SendClosing(endpoint, comms, handshake, duties, use, peerTimeoutNanos);
    }

    /** Whether a close may still wait for its peer: not past its deadline, nor while the JVM ends. */
    static boolean mayWait(long deadline) {
        return System.nanoTime() - deadline < 0 && !Shutdown.inProgress();
    }

    /**
     * Closes a listen communicator: the senders of the connections {@code accept} never returned
     * hear that nothing will be received. Where no operation is free to tell one, the close drives
     * progress until one is, within {@code peerTimeoutMs}. The application's close: the endpoint's
     * follows if nothing will use it again ({@link RdmaEndpoint#closeIfAbandoned}).
     */
    void closeListen(ListenComm listen) {
        closeListen(listen, System.nanoTime() + peerTimeoutNanos);
        endpoint.closeIfAbandoned();
    }

    /** {@link #closeListen(ListenComm)} within {@code deadline} (System.nanoTime). */
    void closeListen(ListenComm listen, long deadline) {
        List<RecvComm> untold = new ArrayList<>();
        endpoint.lock();
        try {
            if (listen.closed) {
                return;
            }
            listen.closed = true;
            handshake.forget(listen);
            untold.addAll(listen.ready);
            listen.ready.clear();
            untold.removeIf(this::toldAndDiscarded);
        } finally {
            endpoint.unlock();
        }
        if (!untold.isEmpty()) {
            progressWhile(() -> {
                untold.removeIf(this::toldAndDiscarded);
                return !untold.isEmpty();
            }, deadline);
            endpoint.lock();
            try {
                untold.forEach(this::discard);
            } finally {
                endpoint.unlock();
            }
        }
    }

    /** Closes a send communicator as {@link SendClosing#close(SendComm)} does. */
    void closeSend(SendComm comm) throws RdmaException {
        sends.close(comm);
    }

    /**
     * The application's close of a send communicator: {@link #closeSend(SendComm)}, then the
     * endpoint's close if nothing will use it again ({@link RdmaEndpoint#closeIfAbandoned}).
     */
    void closeCalled(SendComm comm) throws RdmaException {
        try {
            closeSend(comm);
        } finally {
            endpoint.closeIfAbandoned();
        }
    }

    /** See {@link SendClosing#closeUntaken}. */
    void closeUntaken(SendComm comm) {
        sends.closeUntaken(comm);
    }

    /** Closes a send communicator as {@link SendClosing#close(SendComm, long)} does. */
    void closeSend(SendComm comm, long deadline) throws RdmaException {
        sends.close(comm, deadline);
    }

    /**
     * Closes a receive communicator. With receives outstanding, the sender may still write into
     * their buffers: it is told that this side closes, and the close waits until it confirms that
     * it writes no more, so that the application may then deregister the buffers. The wait ends
     * when the sender confirms, is condemned, or after {@code peerTimeoutMs}; not at all while
     * the JVM ends. The application's close: the endpoint's follows if nothing will use it again
     * ({@link RdmaEndpoint#closeIfAbandoned}).
     */
    void closeRecv(RecvComm comm) {
        closeRecvs(List.of(comm), System.nanoTime() + peerTimeoutNanos);
        endpoint.closeIfAbandoned();
    }

    /**
     * Closes receive communicators as {@link #closeRecv(RecvComm)} does, each waiting for its sender
     * within {@code deadline} (System.nanoTime) and then cancelling its tagged receives; the
     * provider's answers to the cancels of them all are awaited within one {@code peerTimeoutMs}.
     */
    void closeRecvs(List<RecvComm> comms, long deadline) {
        for (RecvComm comm : comms) {
            awaitSender(comm, deadline);
            // Cancelled at once, so that their operations are back for the next one's close signal.
            endpoint.lock();
            try {
                if (!endpoint.isClosed() && !comm.isClosed()) {
                    comm.cancelTagged();
                }
            } finally {
                endpoint.unlock();
            }
        }
        awaitCancels(comms);
        endpoint.lock();
        try {
            for (RecvComm comm : comms) {
                discard(comm);
            }
        } finally {
            endpoint.unlock();
        }
    }

    /** Tells {@code comm}'s sender that it closes and, with receives outstanding, waits for its confirmation. */
    private void awaitSender(RecvComm comm, long deadline) {
        int[] told = new int[1];
        endpoint.lock();
        try {
            told[0] = tellSenderClosing(comm);
        } finally {
            endpoint.unlock();
        }
        if (told[0] == NO_OPERATION) {
            // Every operation is in flight: one ends as progress goes on, within the deadline.
            progressWhile(() -> (told[0] = tellSenderClosing(comm)) == NO_OPERATION, deadline);
        }
        if (told[0] == TOLD_WITH_RECEIVES) {
            progressWhile(() -> !comm.isClosed() && !comm.senderWritesEnded() && comm.liveness().dead() == null,
                    deadline);
        }
    }

    /**
     * Cancels the tagged receives still posted into the application's buffers and waits until the
     * provider has answered each (it may write into them until then), for {@code peerTimeoutMs}
     * from here: not what the wait for a silent sender left. No answer by then is warned of.
     */
    private void awaitCancels(List<RecvComm> comms) {
        List<RecvComm> waiting = new ArrayList<>(comms);
        BooleanSupplier cancelling = () -> {
            waiting.removeIf(comm -> comm.isClosed() || !comm.cancelTagged());
            return !waiting.isEmpty();
        };
        endpoint.lock();
        try {
            if (endpoint.isClosed() || !cancelling.getAsBoolean()) {
                return;
            }
        } finally {
            endpoint.unlock();
        }
        progressWhile(cancelling, System.nanoTime() + peerTimeoutNanos);
        endpoint.lock();
        try {
            for (RecvComm comm : waiting) {
                if (!endpoint.isClosed() && !comm.isClosed() && comm.cancelTagged() && !Shutdown.inProgress()) {
                    LOG.log(Level.WARNING, "closing receive communicator {0}: the provider has not answered the"
                            + " cancels of its tagged receives after peerTimeoutMs ({1} ms); their buffers may still"
                            + " be written", comm.id(), peerTimeoutNanos / 1_000_000);
                }
            }
        } finally {
            endpoint.unlock();
        }
    }

    /**
     * Drives the endpoint's progress, one step at a time and holding the endpoint for each, while
     * {@code waiting} (asked with the endpoint held) says so and the close may still wait.
     */
    private void progressWhile(BooleanSupplier waiting, long deadline) {
        boolean more = true;
        while (more && mayWait(deadline)) {
            endpoint.lock();
            try {
                more = !endpoint.isClosed() && waiting.getAsBoolean();
                if (more) {
                    endpoint.progressEveryRail();
                }
            } catch (RdmaException e) {
                LOG.log(Level.WARNING, "closing a receive communicator: {0}", e.getMessage());
                more = false;
            } finally {
                endpoint.unlock();
            }
            Thread.yield();
        }
    }

    /** {@link #tellSenderClosing}: the sender was not told, as there is nothing to tell or no peer to tell. */
    private static final int NOT_TOLD = 0;
    /** {@link #tellSenderClosing}: the sender was told, and receives were outstanding. */
    private static final int TOLD_WITH_RECEIVES = 1;
    /** {@link #tellSenderClosing}: the sender was told, with no receive outstanding. */
    private static final int TOLD = 2;
    /** {@link #tellSenderClosing}: no operation was free to tell the sender; try again. */
    private static final int NO_OPERATION = 3;

    /**
     * Tells the sender of an open receive communicator that it closes (the caller holds the
     * endpoint), and returns how it went: with receives outstanding the close then awaits their
     * end. The sender hears of every close. With nothing outstanding, every announcement of this
     * side was written before it (a receive ends after its own), so the signal is this side's last
     * word and frees the sender's mailbox; where announcements go over several control rails the
     * signal may overtake one, and the sender waits.
     */
    private int tellSenderClosing(RecvComm comm) {
        if (comm.isClosed() || !comm.connectedAndOpen() || comm.liveness().dead() != null || endpoint.isClosed()) {
            return NOT_TOLD;
        }
        RmaOp op = pools.ops.acquire();
        if (op == null) {
            return NO_OPERATION;
        }
        boolean outstanding = comm.outstanding() > 0;
        Connection sender = comm.connection();
        int last = !outstanding && endpoint.controlRails() == 1 ? Signal.CLOSING_FINAL : 0;
        sender.sendImmediate(op, "close signal", Immediate.signal(Signal.RECEIVER_CLOSING, sender.peerCommId(), last),
                comm.liveness());
        return outstanding ? TOLD_WITH_RECEIVES : TOLD;
    }

    /**
     * A connection the application never accepted, of a listen communicator that closed: its sender
     * hears that nothing will be received, where an operation is free, and it is forgotten. The
     * caller holds the endpoint.
     */
    void dropUnaccepted(RecvComm comm) {
        if (!toldAndDiscarded(comm)) {
            discard(comm);
        }
    }

    /**
     * Tells the sender of an unaccepted connection that nothing will be received, and forgets the
     * connection; false, keeping it, when no operation is free to tell the sender.
     */
    private boolean toldAndDiscarded(RecvComm comm) {
        if (tellSenderClosing(comm) == NO_OPERATION) {
            return false;
        }
        discard(comm);
        return true;
    }

    /** Forgets a receive communicator: its id is free again and progress no longer walks it. */
    void discard(RecvComm comm) {
        if (comm.isClosed()) {
            return;
        }
        comm.markClosed();
        comms.remove(comm);
        comm.forgetPeers();
    }

}
