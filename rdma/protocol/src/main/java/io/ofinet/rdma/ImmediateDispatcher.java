package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.ProgressEngine;
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
    /** Arrivals for a communicator closed under the id they named: expected, not dropped. */
    private long lateForClosedComm;
    private long forged;

    ImmediateDispatcher(RdmaEndpoint endpoint, int dataRails) {
        this.endpoint = endpoint;
        this.dataRails = dataRails;
    }

    /**
     * A remote write with immediate data arrived (context 0), or a notice. Where CQ data has 8
     * bytes, every kind but a data segment carries in its upper half the token of the communicator
     * it names (docs/PROTOCOL.md, "What a peer can forge"): without it, it is dropped and counted,
     * never charged to that communicator. A data segment carries its length there instead, so its
     * sender cannot be told: one that breaks a rule is dropped and counted too. What an
     * attributable arrival breaks fails the communicator it names, and only it.
     */
    void remoteData(int rail, long flags, long len, long data) {
        long checked = checked(data, -1, rail, len, "a remote write");
        if (checked < 0) {
            return;
        }
        int word = (int) checked;
        long upper = data >>> 32;
        int comm = Immediate.commId(word);
        int seq = Immediate.seq(word);
        switch (Immediate.type(word)) {
            case Immediate.TYPE_CONTROL:
                control(rail, comm, seq, 0, 0, upper);
                return;
            case Immediate.TYPE_KEEPALIVE:
                keepalive(rail, comm, Immediate.recvIndex(word), seq, upper);
                return;
            case Immediate.TYPE_DATA: {
                RecvComm recv = openRecv(comm);
                if (recv == null || !fromItsSource(recv, rail, "data segment")) {
                    return;
                }
                long length = endpoint.railSet.wideImmediate() ? upper : len;
                try {
                    recv.segmentArrived(seq, Immediate.recvIndex(word), Immediate.segments(word), length);
                } catch (RdmaException e) {
                    recv.counters.malformed();
                    malformed("dropping a data segment for receive communicator {0}, whose sender cannot be told:"
                            + " {1}", comm, e.getMessage());
                }
                return;
            }
            default: {
                RecvComm recv = openRecv(comm);
                if (recv == null || !fromItsPeer(recv, rail, upper, "refusal")) {
                    return;
                }
                try {
                    recv.errorArrived(seq, Immediate.recvIndex(word), Immediate.segments(word));
                } catch (RdmaException e) {
                    // The peer broke the protocol on this connection: it fails, and only it.
                    recv.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator "
                            + recv.id() + ": " + e.getMessage(), e));
                }
            }
        }
    }

    /**
     * The 32-bit word of what a peer sent on {@code rail} as {@code what}, if it is of {@code type}
     * (or any type for -1); else -1, the arrival dropped and counted: it names nothing that can be
     * trusted, and progress goes on for everyone else.
     */
    private long checked(long data, int type, int rail, long len, String what) {
        int word;
        try {
            word = Immediate.check(data & 0xffffffffL, dataRails);
        } catch (RdmaException e) {
            malformed("dropping {0} on rail {1}: {2}", what, rail, e.getMessage());
            return -1;
        }
        if (type >= 0 && Immediate.type(word) != type) {
            malformed("dropping {0} of {1} bytes and immediate type {2} on rail {3}", what, len,
                    Immediate.type(word), rail);
            return -1;
        }
        return word & 0xffffffffL;
    }

    /** Receive communicator {@code id} if it is open; else null, the arrival dropped and counted. */
    private RecvComm openRecv(int id) {
        RecvComm recv = endpoint.comms.recv(id);
        if (recv == null || recv.closed) {
            unknownComm++;
            LOG.log(Level.WARNING, "dropping a remote write for receive communicator {0}", id);
            return null;
        }
        return recv;
    }

    /**
     * Whether what arrived on engine rail {@code rail} for {@code comm} comes from its peer: it
     * carries the communicator's token in {@code upper}, the upper half of its CQ data (where CQ
     * data has 8 bytes), and its source is the peer's address on that rail (where the provider
     * names sources right). If not, it is dropped and counted.
     */
    private boolean fromItsPeer(PeerLiveness.Peered comm, int rail, long upper, String what) {
        if (!carriesToken(comm, upper)) {
            return forged(comm, what, "its token");
        }
        return fromItsSource(comm, rail, what);
    }

    /** Whether {@code upper}, the upper half of 8-byte CQ data, is {@code comm}'s token; true where it is narrower. */
    private boolean carriesToken(PeerLiveness.Peered comm, long upper) {
        return carriesToken(comm.token(), upper);
    }

    /**
     * Whether an arrival for send communicator {@code comm}, which is not open, is for the one last
     * closed under that id (its token matches, where CQ data carries one): a late word of its peer,
     * expected after a close, not a drop.
     */
    private boolean lateForClosedSend(int comm, long upper) {
        return late(endpoint.comms.closedSendToken(comm), upper);
    }

    private boolean lateForClosedRecv(int comm, long upper) {
        return late(endpoint.comms.closedRecvToken(comm), upper);
    }

    /** Counts a late arrival for a closed communicator whose token was {@code token}; false when it is not one. */
    private boolean late(int token, long upper) {
        boolean late = token != 0 && carriesToken(token, upper);
        if (late) {
            lateForClosedComm++;
        }
        return late;
    }

    boolean carriesToken(int token, long upper) {
        return !endpoint.railSet.wideImmediate() || upper == (token & 0xffffffffL);
    }

    /** Whether the provider names {@code comm}'s peer as the source, or names none; if not, counted. */
    private boolean fromItsSource(PeerLiveness.Peered comm, int rail, String what) {
        long source = endpoint.engine.source();
        if (source == ProgressEngine.SOURCE_UNTOLD) {
            return true;
        }
        Connection peer = comm.connection();
        if (peer == null) {
            // A send communicator whose ACCEPT has not arrived: the receiver may post, and its
            // control message overtake the ACCEPT on another control rail. The token vouches for it.
            return true;
        }
        long expected = rail < dataRails ? peer.dataPeer(rail) : peer.controlPeer(rail - dataRails);
        return source == expected || forged(comm, what, "its peer's address as source");
    }

    private boolean forged(PeerLiveness.Peered comm, String what, String lacking) {
        forged++;
        comm.forgedArrival();
        if (forged <= 10 || forged % 1000 == 0) {
            LOG.log(Level.WARNING, "dropping a {0} for communicator {1} without {2} ({3} so far): not from its peer",
                    what, commId(comm), lacking, forged);
        }
        return false;
    }

    private static int commId(PeerLiveness.Peered comm) {
        return comm instanceof SendComm s ? s.id() : ((RecvComm) comm).id();
    }

    /** Arrivals dropped because their immediate data was malformed or missing. */
    long malformed() {
        return malformed;
    }

    /** Arrivals dropped because they named no open communicator. */
    long unknownComm() {
        return unknownComm;
    }

    long lateForClosedComm() {
        return lateForClosedComm;
    }

    /** Arrivals dropped because they lacked the token of the communicator they named. */
    long forged() {
        return forged;
    }

    /**
     * Counts an arrival dropped as malformed and logs it: the first ten, then every thousandth, so
     * that a peer's flood does not flood the log.
     */
    private void malformed(String pattern, Object... arguments) {
        malformed++;
        if (malformed <= 10 || malformed % 1000 == 0) {
            LOG.log(Level.WARNING, pattern + " ({" + arguments.length + "} so far)", append(arguments, malformed));
        }
    }

    private static Object[] append(Object[] arguments, long count) {
        Object[] all = java.util.Arrays.copyOf(arguments, arguments.length + 1);
        all[arguments.length] = count;
        return all;
    }

    /**
     * A message larger than the receive it met (FI_ETRUNC): a peer's doing, not the endpoint's;
     * dropped and counted as malformed, and the receive is posted again.
     */
    void dropTruncated(String receive, RdmaException cause) {
        malformed("dropping a message too large for {0}: {1}", receive, cause.getMessage());
    }

    /** A message without immediate data where only notices are expected: dropped and counted. */
    void dropStray(int rail, long len) {
        malformed("dropping a {0}-byte message without immediate data on rail {1}", len, rail);
    }

    /**
     * An eager message or intent arrived in {@code buffer} on data rail {@code rail}: {@code len}
     * bytes with immediate data {@code data}. It carries the communicator's token in its header
     * (and, where CQ data has 8 bytes, in the upper half); a header that breaks a rule fails the
     * communicator it names, and only it.
     *
     * @return whether the buffer is held for a receive not yet posted
     */
    boolean eager(int rail, EagerBuffer buffer, long len, long data) {
        long checked = checked(data, Immediate.TYPE_DATA, rail, len, "an eager message");
        if (checked < 0) {
            return false;
        }
        int word = (int) checked;
        RecvComm recv = openRecv(Immediate.commId(word));
        if (recv == null || !fromItsPeer(recv, rail, data >>> 32, "eager message")) {
            return false;
        }
        if (!recv.inbox.carriesToken(buffer, len)) {
            return forged(recv, "eager message", "its token in its header");
        }
        try {
            return recv.eagerArrived(buffer, len, Immediate.seq(word));
        } catch (RdmaException e) {
            recv.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator " + recv.id() + ": "
                    + e.getMessage(), e));
            return false;
        }
    }

    /** A keepalive, or one of the close notices carried as one. */
    private void keepalive(int rail, int comm, int side, int seq, long upper) {
        long now = endpoint.stepNanos();
        switch (side) {
            case Immediate.CREDITS_TO_SENDER:
            case Immediate.TRUNCATED_TO_SENDER:
            case Immediate.NO_TAG_TO_SENDER: {
                SendComm send = endpoint.comms.send(comm);
                if (send == null || send.closed || send.liveness() == null) {
                    unknownComm++;
                    return;
                }
                if (!fromItsPeer(send, rail, upper, side == Immediate.CREDITS_TO_SENDER ? "credit notice" : "refusal")) {
                    return;
                }
                if (side != Immediate.CREDITS_TO_SENDER) {
                    send.eagerRefused(seq, side == Immediate.TRUNCATED_TO_SENDER ? Immediate.ERROR_TRUNCATED
                            : Immediate.ERROR_NO_TAG);
                    return;
                }
                try {
                    send.creditsReturned(seq);
                } catch (RdmaException e) {
                    send.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "send communicator " + send.id()
                            + ": " + e.getMessage(), e));
                }
                return;
            }
            case Immediate.RECEIVER_CLOSING: {
                SendComm send = endpoint.comms.send(comm);
                if (send == null || send.closed) {
                    // Closed already (its confirmation went out at its close): the receiver's last
                    // word, which frees the mailbox kept for it.
                    if (seq == Immediate.CLOSING_FINAL && endpoint.duties.releaseMailbox(comm, upper, this)) {
                        lateForClosedComm++;
                    } else if (!lateForClosedSend(comm, upper)) {
                        unknownComm++;
                    }
                    return;
                }
                if (!fromItsPeer(send, rail, upper, "close notice")) {
                    return;
                }
                send.liveness().heard(now);
                send.receiverDone |= seq == Immediate.CLOSING_FINAL;
                send.peerClosing = true;
                send.failQueued(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
                return;
            }
            case Immediate.SENDER_CLOSED: {
                RecvComm recv = endpoint.comms.recv(comm);
                if (recv == null) {
                    if (!lateForClosedRecv(comm, upper)) {
                        unknownComm++; // else the sender's close crossed this side's: expected
                    }
                } else if (fromItsPeer(recv, rail, upper, "close notice")) {
                    recv.liveness().heard(now);
                    recv.senderClosed(seq, rail);
                }
                return;
            }
            default: {
                boolean toSender = side == Immediate.KEEPALIVE_TO_SENDER;
                PeerLiveness.Peered target = toSender ? endpoint.comms.send(comm) : endpoint.comms.recv(comm);
                if (target == null || target.liveness() == null) {
                    if (!(toSender ? lateForClosedSend(comm, upper) : lateForClosedRecv(comm, upper))) {
                        unknownComm++;
                    }
                } else if (fromItsPeer(target, rail, upper, "keepalive")) {
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
        long checked = checked(data, Immediate.TYPE_CONTROL, rail, len, "a message on a control rail");
        if (checked < 0) {
            return;
        }
        int word = (int) checked;
        control(rail, Immediate.commId(word), Immediate.seq(word), address, len, data >>> 32);
    }

    /**
     * Control message {@code seq} for send communicator {@code comm}: written into its mailbox
     * ({@code address} 0), or arrived as {@code bytes} bytes at {@code address}; {@code upper} is the
     * upper half of its CQ data, the communicator's token.
     */
    private void control(int rail, int comm, int seq, long address, int bytes, long upper) {
        SendComm send = endpoint.comms.send(comm);
        if (send == null || send.closed) {
            SlowDuties.ClosedMailbox kept = send != null ? null : endpoint.duties.quarantined(comm);
            boolean closedOne = send != null ? carriesToken(send, upper) : kept != null && carriesToken(kept.token(), upper);
            if (closedOne) {
                lateForClosedComm++;
            } else {
                unknownComm++;
            }
            if (closedOne) {
                // A normal close: a receive announces itself unless its message is held already,
                // and the message may have gone eagerly before its sender closed.
                LOG.log(Level.DEBUG, "dropping a control message for send communicator {0}: closed", comm);
            } else {
                LOG.log(Level.WARNING, "dropping a control message for send communicator {0}, which is not open",
                        comm);
            }
            return;
        }
        if (!fromItsPeer(send, rail, upper, "control message")) {
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
