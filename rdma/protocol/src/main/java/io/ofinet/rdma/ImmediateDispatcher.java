package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.eager.EagerArrivals;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Signal;
import java.lang.System.Logger.Level;

/**
 * What arrives with immediate data and no posted operation of this side, routed by its type to
 * the communicator it names: remote writes (announcements for send communicators, data segments
 * and errors for receive communicators), eager messages, and zero-byte messages on the control
 * rails and the data rails (write notices, errors, signals). Signals go to {@link SenderSignals}
 * or {@link ReceiverSignals}; every arrival first passes {@link ArrivalChecks}. Called from
 * progress, with the endpoint's lock held.
 */
final class ImmediateDispatcher implements EagerArrivals {
    private static final System.Logger LOG = ArrivalChecks.LOG;
    /** Why a data segment is not its sender's: the sender announces every write of its length by a notice. */
    static final String WRITTEN_WHERE_NOTICED = "written with immediate data, where its sender announces a write of"
            + " that length by a notice message";

    private final CommTable comms;
    private final RailSet rails;
    private final SlowDuties duties;
    private final ArrivalChecks checks;
    private final SenderSignals senderSignals;
    private final ReceiverSignals receiverSignals;

    ImmediateDispatcher(CommTable comms, RailSet rails, SlowDuties duties, CommHost host, int dataRails) {
        this.comms = comms;
        this.rails = rails;
        this.duties = duties;
        this.checks = new ArrivalChecks(comms, rails, host, dataRails);
        this.senderSignals = new SenderSignals(comms, duties, host, checks);
        this.receiverSignals = new ReceiverSignals(comms, host, checks);
    }

    /**
     * A remote write with immediate data arrived (context 0); a zero-byte message takes the same
     * way ({@link #zeroByteMessage}), apart from the rule on written segments. Where CQ data
     * has 8 bytes, every type but data carries in its upper half the token of the communicator it
     * names (docs/PROTOCOL.md, "What a peer can forge"): without it, it is dropped and counted,
     * never charged to that communicator. A data segment carries its length there instead: one its
     * sender could not have sent is dropped and counted as forged, one that breaks another rule as
     * malformed ({@link #segment}). What an
     * attributable arrival breaks fails the communicator it names, and only it.
     */
    void remoteData(int rail, long flags, long len, long data) {
        arrived(rail, len, data, true);
    }

    /** What {@link #remoteData} and {@link #zeroByteMessage} take: a remote write ({@code written}), or a message. */
    private void arrived(int rail, long len, long data, boolean written) {
        long checked = checks.checked(data, -1, rail, len, "a remote write");
        if (checked < 0) {
            return;
        }
        int word = (int) checked;
        long upper = data >>> 32;
        int comm = Immediate.commId(word);
        int seq = Immediate.seq(word);
        switch (Immediate.type(word)) {
            case Immediate.TYPE_ANNOUNCEMENT -> announcement(rail, comm, seq, 0, 0, upper);
            case Immediate.TYPE_SIGNAL -> {
                Signal signal = Immediate.signal(word);
                if (signal.toSender()) {
                    senderSignals.arrived(rail, comm, signal, seq, upper);
                } else {
                    receiverSignals.arrived(rail, comm, signal, seq, upper);
                }
            }
            case Immediate.TYPE_DATA -> segment(rail, comm, seq, word, len, upper, written);
            default -> error(rail, comm, seq, word, upper);
        }
    }

    /**
     * A data segment of a send ({@code written} with immediate data, or its write notice), or a
     * zero-byte send, for receive communicator {@code comm}. One that its sender, keeping the
     * protocol, never sends is forged (docs/PROTOCOL.md, "What a peer can forge"): written with
     * immediate data where the sender announces a write of its length by a notice message, or
     * contradicting what this side announced of its buffer. It is dropped and counted, never
     * charged to the receive it names.
     */
    private void segment(int rail, int comm, int seq, int word, long len, long upper, boolean written) {
        RecvComm recv = checks.openRecv(comm, !rails.wideImmediate(), upper, "a data segment");
        if (recv == null || !checks.fromItsSource(recv, rail, "data segment")) {
            return;
        }
        long length = rails.wideImmediate() ? upper : len;
        if (written && rails.noticeFor(length)) {
            checks.contradicted(recv, WRITTEN_WHERE_NOTICED);
            return;
        }
        try {
            String contradiction = recv.arrivals().segment(seq, Immediate.recvIndex(word), Immediate.segments(word),
                    length);
            if (contradiction != null) {
                checks.contradicted(recv, contradiction);
            }
        } catch (RdmaException e) {
            recv.malformedArrival();
            checks.malformed("dropping a data segment for receive communicator {0}, whose sender cannot be told:"
                    + " {1}", comm, e.getMessage());
        }
    }

    /** An error: the sender refused or failed the send {@code seq} of receive communicator {@code comm}. */
    private void error(int rail, int comm, int seq, int word, long upper) {
        RecvComm recv = checks.openRecv(comm, true, upper, "a refusal");
        if (recv == null || !checks.fromItsPeer(recv, rail, upper, "refusal")) {
            return;
        }
        try {
            recv.arrivals().error(seq, Immediate.recvIndex(word), Immediate.segments(word));
        } catch (RdmaException e) {
            // The peer broke the protocol on this connection: it fails, and only it.
            recv.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator "
                    + recv.id() + ": " + e.getMessage(), e));
        }
    }

    /** The checks every arrival passes, and their counts. */
    ArrivalChecks checks() {
        return checks;
    }

    /** Arrivals dropped because their immediate data was malformed or missing. */
    long malformed() {
        return checks.malformedCount();
    }

    /** Arrivals dropped because they named no open communicator. */
    long unknownComm() {
        return checks.unknownCommCount();
    }

    long lateForClosedComm() {
        return checks.lateForClosedCommCount();
    }

    /** Arrivals dropped because they lacked the token of the communicator they named. */
    long forged() {
        return checks.forgedCount();
    }

    /**
     * A message larger than the receive it met (FI_ETRUNC): a peer's doing, not the endpoint's;
     * dropped and counted as malformed, and the receive is posted again.
     */
    void dropTruncated(String receive, RdmaException cause) {
        checks.malformed("dropping a message too large for {0}: {1}", receive, cause.getMessage());
    }

    /** A message without immediate data where only zero-byte messages with it are expected: dropped and counted. */
    @Override
    public void dropStray(int rail, long len) {
        checks.malformed("dropping a {0}-byte message without immediate data on rail {1}", len, rail);
    }

    /**
     * An eager message or request to send arrived in {@code buffer} on data rail {@code rail}:
     * {@code len} bytes with immediate data {@code data}. It carries the communicator's token in
     * its header (and, where CQ data has 8 bytes, in the upper half); a header that breaks a rule
     * fails the communicator it names, and only it.
     *
     * @return whether the buffer is held for a receive not yet posted
     */
    @Override
    public boolean eager(int rail, EagerBuffer buffer, long len, long data) {
        long checked = checks.checked(data, Immediate.TYPE_DATA, rail, len, "an eager message");
        if (checked < 0) {
            return false;
        }
        int word = (int) checked;
        RecvComm recv = checks.openRecv(Immediate.commId(word), true, data >>> 32, "an eager message");
        if (recv == null || !checks.fromItsPeer(recv, rail, data >>> 32, "eager message")) {
            return false;
        }
        if (!recv.carriesToken(buffer, len)) {
            return checks.forged(recv, "eager message", "its token in its header");
        }
        try {
            return recv.arrivals().eager(buffer, len, Immediate.seq(word));
        } catch (RdmaException e) {
            recv.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "receive communicator " + recv.id() + ": "
                    + e.getMessage(), e));
            return false;
        }
    }

    /**
     * A zero-byte message with immediate data arrived on {@code rail}: a signal, an error, or a
     * write notice.
     */
    @Override
    public void zeroByteMessage(int rail, long len, long data) {
        arrived(rail, len, data, false);
    }

    /**
     * A message with immediate data and {@code len} bytes at {@code address} arrived in a posted
     * control-rail receive: an announcement sent rather than written (docs/PROTOCOL.md, "Write
     * notices"). Anything else with a payload breaks the protocol and is dropped.
     */
    void announcementReceived(int rail, long address, int len, long data) {
        long checked = checks.checked(data, Immediate.TYPE_ANNOUNCEMENT, rail, len, "a message on a control rail");
        if (checked < 0) {
            return;
        }
        int word = (int) checked;
        announcement(rail, Immediate.commId(word), Immediate.seq(word), address, len, data >>> 32);
    }

    /**
     * Announcement {@code seq} for send communicator {@code comm}: written into its mailbox
     * ({@code address} 0), or arrived as {@code bytes} bytes at {@code address}; {@code upper} is the
     * upper half of its CQ data, the communicator's token.
     */
    private void announcement(int rail, int comm, int seq, long address, int bytes, long upper) {
        SendComm send = comms.send(comm);
        if (send == null || send.isClosed()) {
            SlowDuties.ClosedMailbox kept = send != null ? null : duties.quarantined(comm);
            boolean closedOne = send != null ? checks.carriesToken(send.token(), upper)
                    : kept != null && checks.carriesToken(kept.token(), upper);
            if (closedOne) {
                // A normal close: a receive announces itself unless its message is held already,
                // and the message may have gone eagerly before its sender closed.
                checks.lateForClosedComm();
                LOG.log(Level.DEBUG, "dropping an announcement for send communicator {0}: closed", comm);
            } else {
                checks.unknownComm();
                LOG.log(Level.WARNING, "dropping an announcement for send communicator {0}, which is not open",
                        comm);
            }
            return;
        }
        if (!checks.fromItsPeer(send, rail, upper, "announcement")) {
            return;
        }
        try {
            if (address == 0) {
                send.announcementWritten(seq);
            } else {
                send.announcementReceived(seq, address, bytes);
            }
        } catch (RdmaException e) {
            // The peer broke the protocol on this connection: it fails, and only it.
            RdmaException cause = new RdmaException(ErrorCategory.REMOTE, "send communicator " + send.id() + ": "
                    + e.getMessage(), e);
            if (send.liveness() != null) {
                send.liveness().condemn(cause);
            } else {
                send.connecting().failed(cause); // before its ACCEPT: the connect fails
            }
        }
    }
}
