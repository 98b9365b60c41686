package io.ofinet.rdma;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.sched.RailScheduler;
import io.ofinet.rdma.seq.MessageWindow;
import io.ofinet.rdma.wire.ControlMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayDeque;

/**
 * The sending side of a connection. While connecting it owns its control mailbox (where the
 * receiver writes control messages) and waits for the ACCEPT; once connected it knows the
 * receiver's communicator id and its rail addresses.
 *
 * <p>Sends are queued in order. The receiver announces each posted receive with a control message
 * written into mailbox slot {@code sequence mod 256}; the oldest queued send takes the buffer of
 * the oldest announced group whose tag matches, and is written in stripes over the data rails as
 * the scheduler decides. A send larger than its buffer, or whose tag matches no buffer of the
 * group, fails here and is reported to the receiver with an error-typed message. One thread at a
 * time drives a communicator; its state belongs to the endpoint and is touched only with the
 * endpoint held (see {@link RdmaEndpoint}).
 */
public final class SendComm implements AutoCloseable, PeerLiveness.Peered {
    /** Sends outstanding at most: NCCL asks for 32 × maxRecvs. */
    public static final int MAX_REQUESTS = 32 * Limits.MAX_RECVS;

    private final RdmaEndpoint endpoint;
    private final int id;
    private final int token;
    /** What {@link #statistics()} reports. */
    final CommCounters counters = new CommCounters();
    final long deadlineNanos;
    final long mailbox;
    final MrHandle mailboxMr;
    final int slotBytes;
    private boolean connectSent;
    private RdmaException failure;
    /** The receiver, once its ACCEPT arrived; null before. */
    private Connection connection;
    boolean closed;
    long closedNanos;

    private final ControlMessage[] controls = new ControlMessage[Limits.WINDOW];
    /** The receives announced by control messages, by sequence number: the same window type the receiver uses. */
    private final MessageWindow<ControlMessage> announced = new MessageWindow<>(Limits.SEQ_BITS, Limits.WINDOW, 0);
    /** Per window slot: the buffers of the announced receive that sends have taken (a bit each). */
    private final int[] consumed = new int[Limits.WINDOW];
    /** The oldest announced receive not yet used up: the next send goes into it. */
    private int sendSeq;
    private final ArrayDeque<SendRequest> queue = new ArrayDeque<>(MAX_REQUESTS);
    private final ArrayDeque<SendRequest> free = new ArrayDeque<>(MAX_REQUESTS);
    private final SendRequest[] all = new SendRequest[MAX_REQUESTS];
    private PeerLiveness liveness;
    /** The receiver is closing: queued sends failed, a confirmation is due once writes drain. */
    boolean peerClosing;
    boolean closedNoticeSent;
    /** What goes on the wire, once connected. */
    private SendWrites writes;

    SendComm(RdmaEndpoint endpoint, int id, int token, long deadlineNanos, long mailbox, MrHandle mailboxMr,
            int slotBytes) {
        this.endpoint = endpoint;
        this.id = id;
        this.token = token;
        this.deadlineNanos = deadlineNanos;
        this.mailbox = mailbox;
        this.mailboxMr = mailboxMr;
        this.slotBytes = slotBytes;
        for (int i = 0; i < Limits.WINDOW; i++) {
            controls[i] = new ControlMessage();
        }
        for (int i = 0; i < MAX_REQUESTS; i++) {
            all[i] = new SendRequest(this);
            free.add(all[i]);
        }
    }

    @Override
    public int token() {
        return token;
    }

    @Override
    public void forgedArrival() {
        counters.forged();
    }

    /** What it moved, and what was dropped in its name (a snapshot). */
    public CommStatistics statistics() {
        return counters.snapshot();
    }

    /** This side's communicator id, in immediate data the receiver sends. */
    public int id() {
        return id;
    }

    /** The receiver, or null before its ACCEPT arrived. */
    @Override
    public Connection connection() {
        return connection;
    }

    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    boolean connected() {
        return connectSent && connection != null && failure == null;
    }

    /** The CONNECT went out. */
    void connectSent() {
        connectSent = true;
    }

    /** The connection failed before it was made: refused, or the CONNECT did not go out. */
    void connectFailed(RdmaException cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    /** Why the connection failed, or null. */
    RdmaException connectFailure() {
        return failure;
    }

    /** The ACCEPT arrived: the receiver is known, and its liveness is watched from now on. */
    void accepted(Connection receiver, RailScheduler railScheduler, long peerTimeoutMs, long now) {
        this.connection = receiver;
        this.writes = new SendWrites(endpoint, receiver, railScheduler);
        this.liveness = new PeerLiveness(this, peerTimeoutMs, "send communicator " + id
                + " (to receive communicator " + receiver.peerCommId() + ")", now);
        receiver.watch(liveness);
    }

    /** Closed: the fate of the receiver's destinations no longer concerns it. */
    void forgetPeers() {
        if (connection != null) {
            connection.unwatch(liveness);
        }
    }

    @Override
    public PeerLiveness liveness() {
        return liveness;
    }

    @Override
    public int outstanding() {
        return MAX_REQUESTS - free.size();
    }

    @Override
    public boolean connectedAndOpen() {
        return connected() && !closed && liveness != null;
    }

    /**
     * Fails sends whose writes have not completed within the timeout — keepalives on another rail
     * may say the peer lives while a data rail is down — and tells the receiver.
     */
    @Override
    public void checkStalls(long now, long timeoutNanos) {
        if (outstanding() == 0) {
            return;
        }
        for (SendRequest request : all) {
            if (request.inUse && request.pendingOps > 0 && request.writesPostedNanos != 0
                    && now - request.writesPostedNanos > timeoutNanos) {
                request.abandon(new RdmaException(ErrorCategory.REMOTE, "isend: the writes of " + request.size
                        + " bytes (tag " + request.tag + ") did not complete within " + timeoutNanos / 1_000_000
                        + " ms (peerTimeoutMs); a data rail may be down"));
                writes.sendFailed(request);
            }
        }
    }

    /**
     * Fails every send posted and not yet returned by test, those already done too: once the peer is
     * condemned, no request of the communicator reports success (a later send can finish before an
     * earlier one, which would then fail while the later one succeeded).
     */
    @Override
    public void peerDead(RdmaException cause) {
        queue.clear();
        for (SendRequest request : all) {
            if (request.inUse) {
                request.abandon(cause);
            }
        }
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
        if (size > 0 && (mr == null || address < mr.address() || address + size > mr.address() + mr.length())) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "isend: [0x" + Long.toHexString(address) + ", +"
                    + size + ") is not inside its registration");
        }
        endpoint.lock();
        try {
            if (closed) {
                throw new RdmaException(ErrorCategory.INVALID_USAGE, "isend: the send communicator is closed");
            }
            if (liveness.dead != null) {
                throw liveness.dead;
            }
            if (free.isEmpty()) {
                endpoint.progressLocked();
                return null;
            }
            if (peerClosing) {
                // No control message comes for it: it fails, as the sends queued at the notice did.
                SendRequest request = free.poll();
                request.start(address, size, tag, mr);
                request.fail(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
                return request;
            }
            liveness.posting(System.nanoTime());
            SendRequest request = free.poll();
            request.start(address, size, tag, mr);
            queue.add(request);
            // This communicator posts what it can first; then one step of the endpoint (completion
            // queues included) follows, never precedes, the post.
            progress();
            endpoint.progressLocked();
            return request;
        } finally {
            endpoint.unlock();
        }
    }

    void release(SendRequest request) {
        if (request.inUse) {
            request.inUse = false;
            free.add(request);
        }
    }

    /** A control message for {@code seq} was written into the mailbox. */
    void controlArrived(int seq) throws RdmaException {
        int slot = seq % Limits.WINDOW;
        controlArrived(seq, mailbox + (long) slot * slotBytes, slotBytes);
    }

    /**
     * A control message for {@code seq} arrived as a message of {@code bytes} bytes at {@code
     * address} (a posted control receive), instead of being written into the mailbox.
     */
    void controlReceived(int seq, long address, int bytes) throws RdmaException {
        if (bytes > slotBytes) {
            throw new RdmaException(ErrorCategory.REMOTE, "control message " + seq + " of " + bytes
                    + " bytes is larger than a mailbox slot (" + slotBytes + " bytes)");
        }
        controlArrived(seq, address, bytes);
    }

    private void controlArrived(int seq, long address, int bytes) throws RdmaException {
        MessageWindow.Status status = announced.status(seq);
        if (status != MessageWindow.Status.NOT_STARTED) {
            throw new RdmaException(ErrorCategory.REMOTE, "control message " + seq + (status
                    == MessageWindow.Status.UNAVAILABLE ? " is past the window of 256 from " + announced.start()
                    : " arrived twice"));
        }
        int slot = seq % Limits.WINDOW;
        // Decoded straight from where it arrived: only its bytes are read.
        controls[slot].decode(endpoint.memory, address, bytes, endpoint.dataRails(), seq);
        if (liveness != null) { // a control message may overtake the ACCEPT on another rail
            liveness.heard(System.nanoTime());
        }
        announced.insert(seq, controls[slot]);
        consumed[slot] = 0;
    }

    /**
     * One progress step of this communicator, from the endpoint's: queued sends matched against
     * announced receives, and the confirmation of a close the receiver asked for once nothing is in
     * flight.
     */
    void progress() throws RdmaException {
        if (connectedAndOpen() && liveness.dead == null) {
            progressSends();
            if (peerClosing && !writesInFlight()) {
                sendClosedNotice();
            }
        }
    }

    /** Matches queued sends against announced receives, oldest first; bounded by the queue. */
    void progressSends() throws RdmaException {
        for (int budget = queue.size(); budget > 0 && !queue.isEmpty(); budget--) {
            ControlMessage control = announced.retrieve(sendSeq);
            if (control == null) {
                return;
            }
            int slot = sendSeq % Limits.WINDOW;
            SendRequest request = queue.peek();
            int match = -1;
            for (int i = 0; i < control.buffers() && match < 0; i++) {
                if ((consumed[slot] & (1 << i)) == 0 && control.tag(i) == request.tag) {
                    match = i;
                }
            }
            if (match < 0) {
                if (!writes.refuse(request, sendSeq, 0, Immediate.ERROR_NO_TAG, "isend: no buffer of the posted receive "
                        + sendSeq + " has tag " + request.tag)) {
                    return;
                }
                consumed[slot] = (1 << control.buffers()) - 1;
            } else if (request.size > control.length(match)) {
                if (!writes.refuse(request, sendSeq, match, Immediate.ERROR_TRUNCATED, "isend: " + request.size + " bytes do not fit"
                        + " the " + control.length(match) + "-byte receive buffer (tag " + request.tag + ")")) {
                    return;
                }
                consumed[slot] |= 1 << match;
            } else {
                if (!writes.write(request, control, match, sendSeq)) {
                    return;
                }
                consumed[slot] |= 1 << match;
            }
            queue.poll();
            if (consumed[slot] == (1 << control.buffers()) - 1) {
                announced.complete(sendSeq);
                sendSeq = announced.add(sendSeq, 1);
            }
        }
    }

    /** Whether writes of this communicator are still in flight. */
    boolean writesInFlight() {
        for (SendRequest request : all) {
            if (request.inUse && request.pendingOps > 0) {
                return true;
            }
        }
        return false;
    }

    /** Tells the receiver that this side writes no more (once), when its writes completed. */
    void sendClosedNotice() {
        if (closedNoticeSent || connection == null) {
            return;
        }
        // Names the first receive this side did not serve (a grouped receive half served counts
        // as served: its data may still be on its way); the receiver fails that one and later.
        boolean halfServed = announced.retrieve(sendSeq) != null && consumed[sendSeq % Limits.WINDOW] != 0;
        closedNoticeSent = writes.closed(halfServed ? announced.add(sendSeq, 1) : sendSeq);
    }

    /** Fails every queued send; used when the communicator closes or its peer is gone. */
    void failQueued(RdmaException cause) {
        for (SendRequest request : queue) {
            request.fail(cause);
        }
        queue.clear();
    }

    @Override
    public void close() throws RdmaException {
        endpoint.closing.closeSend(this);
    }
}
