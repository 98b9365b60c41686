package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Immediate;
import java.lang.System.Logger.Level;

/**
 * What arrives with immediate data and no posted operation of this side: remote writes (control
 * messages for send communicators, data segments and refusals for receive communicators) and
 * notices on the first control rail (zero-byte messages, refusals, keepalives, close notices),
 * dispatched to the communicator they name. Called from progress, with the endpoint's lock held.
 */
final class ImmediateDispatcher {
    private static final System.Logger LOG = System.getLogger(ImmediateDispatcher.class.getName());

    private final RdmaEndpoint endpoint;
    private final int dataRails;

    private long malformed;
    private long unknownComm;

    ImmediateDispatcher(RdmaEndpoint endpoint, int dataRails) {
        this.endpoint = endpoint;
        this.dataRails = dataRails;
    }

    /**
     * A remote write with immediate data arrived (context 0). What a peer sent that breaks a rule
     * fails the communicator it names; one naming no communicator (a late message for a closed one)
     * is logged and dropped.
     */
    void remoteData(int rail, long flags, long len, long data) {
        int word;
        try {
            word = Immediate.check(data & 0xffffffffL, dataRails);
        } catch (RdmaException e) {
            // It names nothing that can be trusted: dropped, and progress goes on for everyone else.
            malformed++;
            LOG.log(Level.WARNING, "dropping a remote write on rail {0}: {1}", rail, e.getMessage());
            return;
        }
        long length = endpoint.railSet.wideImmediate() ? data >>> 32 : len;
        int comm = Immediate.commId(word);
        int seq = Immediate.seq(word);
        switch (Immediate.type(word)) {
            case Immediate.TYPE_CONTROL:
                control(comm, seq, 0, 0);
                return;
            case Immediate.TYPE_KEEPALIVE:
                keepalive(rail, comm, Immediate.recvIndex(word), Immediate.seq(word));
                return;
            case Immediate.TYPE_DATA:
            case Immediate.TYPE_ERROR: {
                RecvComm recv = endpoint.comms.recv(comm);
                if (recv == null || recv.closed) {
                    unknownComm++;
                    LOG.log(Level.WARNING, "dropping a remote write for receive communicator {0}", comm);
                    return;
                }
                try {
                    if (Immediate.type(word) == Immediate.TYPE_DATA) {
                        recv.segmentArrived(seq, Immediate.recvIndex(word), Immediate.segments(word), length);
                    } else {
                        recv.errorArrived(seq, Immediate.recvIndex(word), Immediate.segments(word));
                    }
                } catch (RdmaException e) {
                    // The peer broke the protocol on this connection: it fails, and only it.
                    recv.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator "
                            + recv.id() + ": " + e.getMessage(), e));
                }
                return;
            }
            default:
                malformed++;
                LOG.log(Level.WARNING, "dropping a remote write of immediate type {0}", Immediate.type(word));
        }
    }

    /** Arrivals dropped because their immediate data was malformed or missing. */
    long malformed() {
        return malformed;
    }

    /** Arrivals dropped because they named no open communicator. */
    long unknownComm() {
        return unknownComm;
    }

    /** A message without immediate data where only notices are expected: dropped and counted. */
    void dropStray(int rail, long len) {
        malformed++;
        LOG.log(Level.WARNING, "dropping a {0}-byte message without immediate data on rail {1}", len, rail);
    }

    /** A keepalive, or one of the close notices carried as one. */
    private void keepalive(int rail, int comm, int side, int seq) {
        long now = System.nanoTime();
        switch (side) {
            case Immediate.RECEIVER_CLOSING: {
                SendComm send = endpoint.comms.send(comm);
                if (send == null || send.closed) {
                    return; // closed already: its confirmation went out at its close
                }
                send.liveness().heard(now);
                send.peerClosing = true;
                send.failQueued(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
                return;
            }
            case Immediate.SENDER_CLOSED: {
                RecvComm recv = endpoint.comms.recv(comm);
                if (recv != null) {
                    recv.liveness().heard(now);
                    recv.senderClosed(seq, rail);
                }
                return;
            }
            default: {
                PeerLiveness.Peered target = side == Immediate.KEEPALIVE_TO_SENDER ? endpoint.comms.send(comm) : endpoint.comms.recv(comm);
                if (target != null && target.liveness() != null) {
                    target.liveness().heard(now);
                }
            }
        }
    }

    /** A send with immediate data arrived on a control rail: a zero-byte message or a refusal. */
    void notice(int rail, long len, long data) {
        remoteData(rail, 0, len, data);
    }

    /**
     * A message with immediate data and {@code len} bytes at {@code address} arrived in a posted
     * control receive: a control message sent rather than written (docs/PROTOCOL.md, "Write
     * notices"). Anything else with a payload breaks the protocol and is dropped.
     */
    void controlMessage(int rail, long address, int len, long data) {
        int word;
        try {
            word = Immediate.check(data & 0xffffffffL, dataRails);
        } catch (RdmaException e) {
            malformed++;
            LOG.log(Level.WARNING, "dropping a message on control rail {0}: {1}", rail, e.getMessage());
            return;
        }
        if (Immediate.type(word) != Immediate.TYPE_CONTROL) {
            malformed++;
            LOG.log(Level.WARNING, "dropping a {0}-byte message of immediate type {1} on control rail {2}", len,
                    Immediate.type(word), rail);
            return;
        }
        control(Immediate.commId(word), Immediate.seq(word), address, len);
    }

    /**
     * Control message {@code seq} for send communicator {@code comm}: written into its mailbox
     * ({@code address} 0), or arrived as {@code bytes} bytes at {@code address}.
     */
    private void control(int comm, int seq, long address, int bytes) {
        SendComm send = endpoint.comms.send(comm);
        if (send == null || send.closed) {
            unknownComm++;
            LOG.log(Level.WARNING, "dropping a control message for send communicator {0}", comm);
            return;
        }
        try {
            if (address == 0) {
                send.controlArrived(seq);
            } else {
                send.controlReceived(seq, address, bytes);
            }
        } catch (RdmaException e) {
            send.failQueued(e);
        }
    }
}
