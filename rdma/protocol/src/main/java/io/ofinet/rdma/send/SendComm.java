package io.ofinet.rdma.send;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Closer;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.comm.Communicator;
import io.ofinet.rdma.comm.PeerLiveness;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.sched.RailScheduler;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;

/**
 * The sending side of a connection. While connecting it owns its mailbox (where the
 * receiver writes announcements) and waits for the ACCEPT; once connected it knows the
 * receiver's communicator id and its rail addresses.
 *
 * <p>Sends are queued in order; the k-th send with a tag fills the k-th receive buffer with that
 * tag. Sends of up to {@code eagerMaxSize} go out at once as eager messages, matched by tag at the
 * receiver; the receiver announces each receive with a larger buffer with an announcement written
 * into mailbox slot {@code sequence mod 256}, into whose buffer a larger send is written in
 * stripes over the data rails as the scheduler decides ({@link SendSequencer}). A send larger than
 * its buffer fails on both sides. One thread at a
 * time drives a communicator; its state belongs to the endpoint and is touched only with the
 * endpoint held (see the package {@code io.ofinet.rdma}).
 */
public final class SendComm extends Communicator<SendRequest> {
    private static final System.Logger LOG = System.getLogger(SendComm.class.getName());
    /** Sends outstanding at most: NCCL asks for 32 × maxRecvs. */
    public static final int MAX_REQUESTS = 32 * Limits.MAX_RECVS;

    private final Closer<SendComm> closer;
    private final Mailbox mailbox;
    private final Connecting connecting;

    /** How queued sends meet announced receives: the queue, ordinals per tag, announcements, eager credits. */
    private final SendSequencer sequencer;
    /** The receiver is closing: queued sends failed, a confirmation is due once writes drain. */
    private boolean peerClosing;
    /** The receiver closed with nothing outstanding: it writes nothing more into the mailbox. */
    private boolean receiverDone;
    private boolean closedSignalSent;
    /** What goes on the wire, once connected. */
    private SendWrites writes;

    /** A send communicator connecting until {@code deadlineNanos}, whose receiver writes announcements into {@code mailbox}. */
    public SendComm(CommParts parts, Closer<SendComm> closer, int id, int token, long deadlineNanos, Mailbox mailbox) {
        super(parts, id, token, MAX_REQUESTS);
        this.closer = closer;
        this.connecting = new Connecting(deadlineNanos);
        this.mailbox = mailbox;
        this.sequencer = new SendSequencer(parts);
    }

    @Override
    protected SendRequest newRequest(RequestPool<SendRequest> pool) {
        return new SendRequest(this, pool);
    }

    /** A send of {@code bytes} completed: counted for the communicator and the endpoint. */
    void moved(long bytes) {
        parts.ops().counts().sent(bytes);
        counters.moved(bytes);
    }

    /** Where the receiver writes announcements: native memory the endpoint frees once the receiver writes no more. */
    public Mailbox mailbox() {
        return mailbox;
    }

    /** Whether the receiver closed with nothing outstanding: it writes nothing more into the mailbox. */
    public boolean receiverDone() {
        return receiverDone;
    }

    /**
     * The receiver is closing (with nothing outstanding when {@code done}): queued sends fail,
     * and a confirmation is due once the writes drain.
     */
    public void receiverClosing(boolean done) {
        receiverDone |= done;
        peerClosing = true;
    }

    /** Its connection while the handshake makes it. */
    public Connecting connecting() {
        return connecting;
    }

    /** Whether the handshake has made its connection. */
    public boolean connected() {
        return connection != null && connecting.succeeded();
    }

    /** The ACCEPT arrived: the receiver is known, and its liveness is watched from now on. */
    public void accepted(Connection receiver, RailScheduler railScheduler, long peerTimeoutMs, long now) {
        this.connection = receiver;
        this.writes = new SendWrites(parts, receiver, railScheduler, new SendWrites.EagerOwner() {
            @Override
            public void sent(long bytes) {
                counters.moved(bytes);
            }

            @Override
            public void opDone(RmaOp op) {
            }

            @Override
            public void opFailed(RmaOp op, RdmaException cause) {
                liveness.condemn(new RdmaException(ErrorCategory.REMOTE, "send communicator " + id()
                        + ": an eager message or request to send did not go out: " + cause.getMessage(), cause));
            }
        });
        this.liveness = new PeerLiveness(this, peerTimeoutMs, "send communicator " + id()
                + " (to receive communicator " + receiver.peerCommId() + ")", now);
        receiver.watch(liveness);
    }

    @Override
    public boolean connectedAndOpen() {
        return connected() && !isClosed() && liveness != null;
    }

    /**
     * Sends the errors owed to the receiver, and fails sends whose writes have not completed within
     * the timeout — keepalives on another rail may say the peer lives while a data rail is down —
     * and tells the receiver.
     */
    @Override
    public void checkStalls(long now, long timeoutNanos) {
        writes.sendOwedErrors();
        if (outstanding() == 0) {
            return;
        }
        for (int i = 0; i < requests.created(); i++) {
            SendRequest request = requests.at(i);
            if (request.inUse() && request.state() == SendRequest.State.MOVING && request.pendingOps() > 0
                    && now - request.writesPostedNanos > timeoutNanos) {
                request.abandon(new RdmaException(ErrorCategory.REMOTE, "isend: the writes of " + request.size
                        + " bytes (tag " + request.tag + ") did not complete within " + timeoutNanos / 1_000_000
                        + " ms (peerTimeoutMs); a data rail may be down"));
                writes.sendFailed(request);
            }
        }
    }

    /**
     * A write or the tagged message of {@code request} failed here, and its others have ended: the
     * receiver hears that nothing more comes into its buffer, rather than waiting for it.
     */
    void writeFailed(SendRequest request) {
        if (connectedAndOpen() && liveness.dead() == null) {
            writes.sendFailed(request);
        }
    }

    /**
     * Fails every send posted and not yet returned by test, those already done too: once the peer is
     * condemned, no request of the communicator reports success (a later send can finish before an
     * earlier one, which would then fail while the later one succeeded).
     */
    @Override
    public void peerDead(RdmaException cause) {
        sequencer.failQueued(null);
        super.peerDead(cause);
    }

    /**
     * Queues a send of {@code [address, address + size)}, registered in {@code mr}, with {@code tag}.
     *
     * @return the request, or null when {@link #MAX_REQUESTS} sends are outstanding (retry later)
     */
    public SendRequest isend(long address, long size, int tag, MrHandle mr) throws RdmaException {
        if (size < 0 || size > 0xffffffffL) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "isend: size " + size + " outside 0..2^32-1");
        }
        if (size > 0 && (mr == null || !mr.covers(address, size))) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "isend: [0x" + Long.toHexString(address) + ", +"
                    + size + ") is not inside its registration");
        }
        host.lock();
        try {
            if (isClosed()) {
                throw new RdmaException(ErrorCategory.INVALID_USAGE, "isend: the send communicator is closed");
            }
            if (liveness.dead() != null) {
                throw liveness.dead();
            }
            if (!requests.available()) {
                host.progressLocked();
                return null;
            }
            if (peerClosing) {
                // No announcement comes for it: it fails, as the sends queued at the signal did.
                SendRequest request = requests.take();
                request.start(address, size, tag, 0, mr);
                request.fail(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
                return request;
            }
            liveness.posting();
            SendRequest request = requests.take();
            sequencer.queue(request, address, size, tag, mr);
            // It posts what can go now (an eager message, a request to send, or writes into a
            // receive already announced) and returns; the steps of test() advance what waits. When
            // the send waits for its announcement, the next step reads the control rails.
            progress();
            if (awaitsAnnouncement()) {
                host.expectAnnouncement();
            }
            return request;
        } finally {
            host.unlock();
        }
    }

    /** Drops its requests and unused announcement slots when it has been idle a while (slow duties). */
    @Override
    public boolean trimIfIdle(long now) {
        if (!super.trimIfIdle(now)) {
            return false;
        }
        sequencer.dropIdleSlots();
        return true;
    }

    /** The announcement for {@code seq} was written into the mailbox. */
    public void announcementWritten(int seq) throws RdmaException {
        announcementArrived(seq, mailbox.slot(seq), mailbox.slotBytes());
    }

    /**
     * The announcement for {@code seq} arrived as a message of {@code bytes} bytes at {@code
     * address} (a posted control-rail receive), instead of being written into the mailbox.
     */
    public void announcementReceived(int seq, long address, int bytes) throws RdmaException {
        mailbox.checkFits(seq, bytes);
        announcementArrived(seq, address, bytes);
    }

    private void announcementArrived(int seq, long address, int bytes) throws RdmaException {
        sequencer.checkArrival(seq);
        // Decoded straight from where it arrived: only its bytes are read.
        sequencer.slotFor(seq).decode(parts.memory(), address, bytes, parts.dataRails(), seq);
        if (liveness != null) { // an announcement may overtake the ACCEPT on another rail
            liveness.heard(host.stepNanos());
        }
        sequencer.arrived(seq);
    }

    /** The receiver's count of credits returned, modulo 2^10 ({@link SendSequencer#creditsReturned}). */
    public void creditsReturned(int total) throws RdmaException {
        liveness.heard(host.stepNanos());
        sequencer.creditsReturned(total);
    }

    /**
     * The receiver refused message {@code seq}, sent matched by its tag, for not fitting its buffer:
     * the send waiting with its request to send fails; a send already done cannot (the receiver's
     * receive failed), and the refusal is counted and logged.
     */
    public void eagerRefused(int seq) {
        liveness.heard(host.stepNanos());
        if (sequencer.refused(seq)) {
            return; // a request to send: its send failed with its own reason
        }
        if (sequencer.sentEager(seq)) {
            // Its send completed when it was copied out: the refusal fails the receive there, and is
            // said here once, naming the message; the communicator goes on.
            counters.refusedAfterDone();
            LOG.log(System.Logger.Level.WARNING, "send communicator {0}: the receiver refused eager message {1} ({2}"
                    + " bytes, tag {3}), which completed here: {4}; the receive failed there, and the connection goes"
                    + " on", id(), seq, Long.toString(sequencer.sizeOf(seq)), sequencer.tagOf(seq),
                    "it did not fit its receive buffer");
            return;
        }
        liveness.condemn(new RdmaException(ErrorCategory.REMOTE, "send communicator " + id() + ": the receiver refused"
                + " message " + seq + ", which was not sent eagerly: it broke the protocol"));
    }

    /**
     * One progress step of this communicator, from the endpoint's: queued sends matched against
     * announced receives, and the confirmation of a close the receiver asked for once nothing is in
     * flight.
     */
    public void progress() throws RdmaException {
        if (connectedAndOpen() && liveness.dead() == null) {
            progressSends();
            if (peerClosing && !operationsInFlight()) {
                sendClosedSignal();
            }
        }
    }

    /** Matches queued sends against announced receives, the first of each tag; bounded by the queue. */
    public void progressSends() throws RdmaException {
        sequencer.progress(writes);
    }

    /** Whether a queued send waits for something the control rails bring: its announcement, or credits. */
    public boolean awaitsAnnouncement() {
        return sequencer.awaitsAnnouncement();
    }

    /**
     * Tells the receiver that this side writes no more (once), when its writes completed, and how
     * much it sent that the receiver counts (once all has arrived, the receiver fails the receives
     * nothing came for); false while no operation is free to tell it (it is told at a later call).
     */
    public boolean sendClosedSignal() {
        if (!closedSignalSent && connection != null) {
            closedSignalSent = writes.closed();
        }
        return closedSignalSent || connection == null;
    }

    /** Fails every queued send; used when the communicator closes or its peer is gone. */
    public void failQueued(RdmaException cause) {
        sequencer.failQueued(cause);
    }

    @Override
    public void close() throws RdmaException {
        closer.close(this);
    }
}
