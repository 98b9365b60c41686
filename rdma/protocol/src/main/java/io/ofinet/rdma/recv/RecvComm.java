package io.ofinet.rdma.recv;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.comm.Communicator;
import io.ofinet.rdma.comm.PeerLiveness;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Connection;
import java.util.function.Consumer;

/**
 * The receiving side of a connection: the sender's communicator id, its rail addresses, and
 * where to write announcements (its mailbox address, slot size and control-rail keys).
 *
 * <p>Each receive takes the next sequence number per buffer, and each buffer its tag's next
 * ordinal: the k-th send with a tag fills the k-th buffer with that tag. A receive with a buffer
 * larger than {@code eagerMaxSize} (or posted while the sender runs ahead) RDMA-writes an
 * announcement into the sender's mailbox over a control rail (round-robin), with the control-rail
 * registration and immediate data, listing its buffers, lengths, tags, ordinals and per-rail keys;
 * segments arrive as remote writes with immediate data, in any order and over any rail. Eager
 * messages arrive into the endpoint's posted eager buffers and are matched by tag and ordinal, or
 * held until their buffer is posted, by {@link EagerInbox}. One thread at a time drives a
 * communicator; its state belongs to the endpoint and is touched only with the endpoint held (see
 * the package {@code io.ofinet.rdma}).
 */
public final class RecvComm extends Communicator<RecvRequest> {
    /** Receives outstanding at most, as NCCL asks. */
    public static final int MAX_REQUESTS = 32;

    /** Its endpoint's close of a receive communicator, which cannot fail. */
    private final Consumer<RecvComm> closer;
    /** Where this side's announcements go, and how. */
    private final ReceiveAnnouncer announcer;
    private boolean acceptSent;

    private final ReceiveWindow window = new ReceiveWindow();
    private final Flushes flushes;
    /** Eager messages and requests to send: matched, held until their receive, credits returned. */
    private final EagerInbox inbox;
    /** The sender's close, as its close signals tell it. */
    private final SenderClose senderClose;
    private final PostedBuffers buffers = new PostedBuffers(requests);
    private final SenderArrivals arrivals;

    public RecvComm(CommParts parts, Consumer<RecvComm> closer, int id, int token, Connection sender, long peerMailbox,
            int peerSlotBytes, long[] peerMailboxKeys) {
        super(parts, id, token, MAX_REQUESTS);
        this.closer = closer;
        this.connection = sender;
        this.announcer = new ReceiveAnnouncer(parts, sender, id, token, parts.eagerMax(), peerMailbox, peerSlotBytes,
                peerMailboxKeys);
        this.inbox = new EagerInbox(this, parts);
        this.senderClose = new SenderClose(parts.rails(), parts.dataRails(), this::failUnserved);
        this.arrivals = new SenderArrivals(this, window, inbox, senderClose);
        this.flushes = new Flushes(this, parts, MAX_REQUESTS);
        this.liveness = new PeerLiveness(this, parts.params().peerTimeoutMs(),
                "receive communicator " + id + " (from send communicator " + sender.peerCommId() + ")",
                System.nanoTime());
        sender.watch(liveness);
    }

    /** Fails the receives nothing filled once nothing more comes; those posted after the close was said say so. */
    private void failUnserved() {
        abandonRequests(new RdmaException(ErrorCategory.REMOTE, "irecv: the sender closed the connection"),
                request -> request.postedAfterClose && !request.finished() && !request.buffersFilled());
        abandonRequests(new RdmaException(ErrorCategory.REMOTE, "receive communicator " + id()
                + ": the sender closed the connection before sending the message"),
                request -> !request.finished() && !request.buffersFilled());
    }

    /** Closed: the fate of the sender's destinations no longer concerns it. */
    @Override
    public void forgetPeers() {
        super.forgetPeers();
        inbox.dropAll();
    }

    @Override
    protected RecvRequest newRequest(RequestPool<RecvRequest> pool) {
        return new RecvRequest(this, pool);
    }

    @Override
    public boolean connectedAndOpen() {
        return acceptSent && !isClosed();
    }

    /**
     * Returns the credits that fell due while no operation was free (the sender may wait for them),
     * and times receives out ({@link RecvRequest#timedOut}): a partial buffer, or a stall's hold,
     * that got nothing within the timeout (one with nothing yet may wait for an idle sender). Stripes
     * of one message are written together, so a missing one means its rail stopped: on tcp the
     * sender's write completes once its data is in the socket buffer, so the sender may not know.
     */
    @Override
    public void checkStalls(long now, long timeoutNanos) {
        inbox.returnCredits(EagerInbox.CREDIT_BATCH);
        if (outstanding() == 0) {
            return;
        }
        announceOwed();
        for (int i = 0; i < requests.created(); i++) {
            RecvRequest request = requests.at(i);
            if (request.inUse() && !request.finished() && request.partialSinceNanos != 0
                    && now - request.partialSinceNanos > timeoutNanos) {
                request.timedOut(new RdmaException(ErrorCategory.REMOTE, "irecv: receive " + request.seq + " got part of"
                        + " a message and nothing more within " + timeoutNanos / 1_000_000 + " ms (peerTimeoutMs);"
                        + " a data rail may be down"));
            }
        }
    }

    /**
     * The peer is condemned: as on every communicator, until the sender's close has been confirmed
     * behind its writes on every data rail. After it the sender's end takes nothing away: the receives
     * it served keep their success, and only those not finished fail.
     */
    @Override
    public void peerDead(RdmaException cause) {
        boolean ended = senderClose.writesEnded();
        abandonRequests(cause, request -> !ended || !request.finished());
    }

    /**
     * Cancels the tagged receives its receives still have posted, for its close: the provider
     * writes into their buffers until it has answered each cancel.
     *
     * @return whether some are still posted, those of receives that failed already included
     */
    public boolean cancelTagged() {
        for (int i = 0; i < requests.created(); i++) {
            RecvRequest request = requests.at(i);
            if (request.inUse() && request.tagged.pending()) {
                request.tagged.cancel();
            }
        }
        return taggedPosted();
    }

    /** Whether tagged receives of its receives are still posted, those of receives that failed included. */
    public boolean taggedPosted() {
        return announcer.taggedPosted();
    }

    /**
     * Posts a grouped receive of {@code count} buffers (1..8), each registered in its handle.
     *
     * @return the request, or null when it cannot be posted now (too many outstanding, the
     *     sequence window full, or no control buffer free): retry later
     */
    public RecvRequest irecv(int count, long[] addresses, long[] sizes, int[] tags, MrHandle[] mrs)
            throws RdmaException {
        ReceiveArguments.check(count, addresses, sizes, tags, mrs);
        host.lock();
        try {
            RecvRequest request = post(count, addresses, sizes, tags, mrs);
            if (request == null) {
                // Nothing could be posted: a step frees what the caller's retry needs. A posted
                // receive returns at once; the steps of test() advance it.
                host.progressLocked();
            }
            return request;
        } finally {
            host.unlock();
        }
    }

    /** The part of {@link #irecv} that needs the endpoint: its arguments are checked. */
    private RecvRequest post(int count, long[] addresses, long[] sizes, int[] tags, MrHandle[] mrs)
            throws RdmaException {
        if (isClosed()) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "irecv: the receive communicator is closed");
        }
        if (liveness.dead() != null) {
            throw liveness.dead();
        }
        if (!requests.available() || !window.fits(count)) {
            return null;
        }
        announceOwed();
        liveness.posting();
        // A sender that closed sent what it sent to this receive eagerly: nobody reads an announcement.
        // While the sender runs ahead, every receive is announced: it may be out of credits.
        boolean announce = (announcer.needed(count, sizes) || inbox.held() >= EagerInbox.RUNNING_AHEAD)
                && !senderClose.said();
        int tagged = announce ? announcer.taggedBuffers(count, sizes, mrs) : 0;
        if (announce && !announcer.reserve(tagged)) {
            return null;
        }
        RecvRequest request = requests.take();
        int seq = window.next();
        request.start(seq, count, senderClose.said());
        for (int i = 0; i < count; i++) {
            request.address[i] = addresses[i];
            request.capacity[i] = sizes[i];
            request.tag[i] = tags[i];
            request.mrs[i] = mrs[i];
        }
        buffers.number(request);
        // In the window before its posts: one that fails at once takes its numbers out again.
        window.insert(request, count);
        if (announce) {
            announcer.announce(request, tagged);
        }
        if (inbox.held() > 0) {
            inbox.posted(request);
        }
        if (!request.buffersFilled()) {
            senderClose.failUnservedIfDone();
        }
        return request;
    }

    /** Its buffers by tag and ordinal, for the messages matched by tag. */
    PostedBuffers buffers() {
        return buffers;
    }

    /**
     * Announces the posted receives not announced yet and not finished: the sender runs ahead of
     * them, and an announcement lets it write into their buffers without credits. What cannot be
     * announced now is tried again at the next post, arrival or stall check ({@link #announceOwed}).
     */
    void announcePosted() {
        if (!senderClose.said()) {
            announcer.announceUnannounced(requests, liveness);
        }
    }

    /** Announces what {@link #announcePosted} could not, when something is owed. */
    void announceOwed() {
        if (announcer.owed()) {
            announcePosted();
        }
    }

    /** What it knows of the sender's close, and the arrivals it counts for it. */
    SenderClose senderClose() {
        return senderClose;
    }

    /** What arrives from the sender, as the endpoint's dispatch hands it over. */
    public SenderArrivals arrivals() {
        return arrivals;
    }

    /**
     * Something arrived for {@code request}: once it is done, its numbers leave the window and it is
     * counted, once (a request to send may still arrive for a buffer its tagged message filled).
     */
    public void progressed(RecvRequest request) {
        if (request.succeeded() && window.complete(request)) {
            parts.ops().counts().received(request.receivedBytes());
            counters.moved(request.receivedBytes());
        }
    }

    /**
     * {@code request} failed: its numbers leave the window, and what arrives for them is dropped.
     * Called by every failure of a receive ({@link RecvRequest#fail}); once it has left, later
     * calls do nothing.
     */
    void failed(RecvRequest request) {
        window.complete(request);
    }

    /** Drops its requests and flushes when it has been idle a while (the endpoint's slow duties). */
    @Override
    public boolean trimIfIdle(long now) {
        flushes.trimIfIdle(now);
        return super.trimIfIdle(now);
    }

    /**
     * Flushes received data: an RDMA read of a few bytes of the first non-empty buffer on every
     * data rail, through the endpoint's own address. Completes at once when the layout disables
     * the flush or every buffer is empty.
     *
     * @return the request, or null when it cannot be posted now (retry later)
     */
    public FlushRequest iflush(int count, long[] addresses, long[] sizes, MrHandle[] mrs) throws RdmaException {
        ReceiveArguments.checkFlush(count, addresses, sizes, mrs);
        host.lock();
        try {
            if (isClosed()) {
                throw new RdmaException(ErrorCategory.INVALID_USAGE, "iflush: the receive communicator is closed");
            }
            FlushRequest request = flushes.post(count, addresses, sizes, mrs);
            if (request == null) {
                host.progressLocked(); // nothing posted: a step frees what the retry needs
            }
            return request;
        } finally {
            host.unlock();
        }
    }

    @Override
    public void close() {
        closer.accept(this);
    }

    /** Its ACCEPT went out: it is connected. */
    public void acceptSent() {
        acceptSent = true;
    }

    /** Whether the sender's close has been confirmed behind its writes on every data rail. */
    public boolean senderWritesEnded() {
        return senderClose.writesEnded();
    }

    /** Whether the eager message in {@code buffer} ({@code len} bytes) carries this communicator's token. */
    public boolean carriesToken(EagerBuffer buffer, long len) {
        return inbox.carriesToken(buffer, len);
    }

    /** Eager messages and requests to send it holds for receives not posted yet (diagnostics, tests). */
    public int heldEagerMessages() {
        return inbox.held();
    }

    /** Whether the sender said it writes no more. */
    public boolean senderSaidClosed() {
        return senderClose.said();
    }
}
