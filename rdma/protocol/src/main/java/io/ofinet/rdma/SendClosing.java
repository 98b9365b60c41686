package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.send.SendComm;
import java.lang.System.Logger.Level;

/**
 * How a send communicator closes (for {@link CommClosing}): its writes in flight drain and its
 * receiver is told, one progress step at a time with the endpoint let go in between, within
 * {@code peerTimeoutMs}.
 */
final class SendClosing {
    private static final System.Logger LOG = System.getLogger(SendClosing.class.getName());

    private final RdmaEndpoint endpoint;
    private final CommTable comms;
    private final Handshake handshake;
    private final SlowDuties duties;
    private final EndpointUse use;
    private final long peerTimeoutNanos;

    SendClosing(RdmaEndpoint endpoint, CommTable comms, Handshake handshake, SlowDuties duties, EndpointUse use,
            long peerTimeoutNanos) {
        this.endpoint = endpoint;
        this.comms = comms;
        this.handshake = handshake;
        this.duties = duties;
        this.use = use;
        this.peerTimeoutNanos = peerTimeoutNanos;
    }

    /**
     * Closes a send communicator: its writes in flight drain first (at most peerTimeoutMs, while
     * the peer is alive), so that the application may then deregister the buffers they read from,
     * and the receiver is told that no more come.
     */
    void close(SendComm comm) throws RdmaException {
        close(comm, System.nanoTime() + peerTimeoutNanos);
    }

    /**
     * {@link #close(SendComm)} within {@code deadline} (System.nanoTime). A progress step that
     * fails (the endpoint's completion queue, not the communicator) ends the wait as the deadline
     * does: the communicator closes all the same, the receiver told, and the failure is thrown after.
     */
    void close(SendComm comm, long deadline) throws RdmaException {
        RdmaException[] failed = new RdmaException[1];
        while (!closeSendStep(comm, deadline, failed)) {
            Thread.yield();
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /** One step of {@link #close}; true when the communicator is closed. */
    private boolean closeSendStep(SendComm comm, long deadline, RdmaException[] failed) {
        endpoint.lock();
        try {
            if (comm.isClosed()) {
                return true;
            }
            comm.failQueued(new RdmaException(ErrorCategory.INVALID_USAGE, "the send communicator was closed"));
            boolean live = !endpoint.isClosed() && comm.connectedAndOpen() && comm.liveness().dead() == null;
            if (live && comm.operationsInFlight() && CommClosing.mayWait(deadline) && progressed(failed)) {
                return false;
            }
            // Drained, out of time, or a progress step failed: the close goes on without waiting,
            // and the receiver is told; where every operation is in flight, once one ends.
            if (live) {
                boolean told = comm.sendClosedSignal();
                if (!told && CommClosing.mayWait(deadline) && progressed(failed)) {
                    return false;
                }
                if (told) {
                    progressed(failed);
                } else if (failed[0] == null && !Shutdown.inProgress()) {
                    LOG.log(Level.WARNING, "closing send communicator {0}: no operation came free within"
                            + " peerTimeoutMs to tell the receiver that it closed", comm.id());
                }
            }
            finish(comm);
            return true;
        } finally {
            endpoint.unlock();
        }
    }

    /**
     * Closes a send communicator no connect call took ({@link Connector#closeGivenUp}), from inside
     * a progress step, holding the endpoint: nothing was sent on it, so nothing is waited for and
     * no step runs. The signal that tells an accepting receiver goes if an operation is free (a
     * later step reaps it); if none is, the receiver learns of the close by its silence.
     */
    void closeUntaken(SendComm comm) {
        if (comm.isClosed()) {
            return;
        }
        try {
            boolean live = !endpoint.isClosed() && comm.connectedAndOpen() && comm.liveness().dead() == null;
            if (live && !comm.sendClosedSignal()) {
                LOG.log(Level.INFO, "closing send communicator {0}, given up: no operation free to tell its"
                        + " receiver, which learns of it by its silence", comm.id());
            }
        } finally {
            finish(comm);
        }
    }

    /** The end of a send communicator's close: out of the tables, its mailbox released or kept a while. */
    private void finish(SendComm comm) {
        comm.markClosed();
        comms.remove(comm);
        handshake.forget(comm);
        if (comm.liveness() != null && (comm.liveness().dead() != null || comm.operationsInFlight())) {
            use.closedWithStranded(comm.connection()); // only the endpoint's close ends what tcp holds of them
        }
        comm.forgetPeers();
        if (comm.receiverDone()) {
            duties.releaseMailbox(comm.mailbox().address(), comm.mailbox().mr());
        } else {
            // The receiver may still write announcements into the mailbox: keep it
            // registered until it says its last word, or for peerTimeoutMs, so that such a
            // write never meets a missing key (which breaks rxm connections).
            duties.quarantine(comm);
        }
    }

    /** One progress step of every rail; false when it failed, the first failure kept in {@code failed}. */
    private boolean progressed(RdmaException[] failed) {
        try {
            endpoint.progressEveryRail();
            return true;
        } catch (RdmaException e) {
            if (failed[0] == null) {
                failed[0] = e;
            }
            return false;
        }
    }
}
