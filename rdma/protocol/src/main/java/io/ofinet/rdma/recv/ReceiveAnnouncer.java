package io.ofinet.rdma.recv;

import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.comm.ControlBuffers;
import io.ofinet.rdma.comm.PeerLiveness;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.comm.Timeline;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.TaggedData;

/**
 * Tells a receive communicator's sender of each posted receive: its announcement — remote
 * address or offset, length, tag and data-rail keys of each buffer — encoded into a registered
 * control buffer and written into the sender's mailbox slot {@code sequence mod 256} with
 * immediate data, over control rail {@code sequence mod control rails}; or, where writes are
 * announced by notices (docs/PROTOCOL.md, "Write notices"), sent as one message into the
 * sender's posted control receives. Buffers that take one tagged message instead of writes
 * (writeNotice tagged) get their tagged receives posted first. Touched only with the endpoint held.
 */
final class ReceiveAnnouncer {
    private final CommParts parts;
    private final RailSet rails;
    private final Ops pool;
    private final Connection sender;
    /** The receive communicator's id and token, which the tags of its tagged receives carry. */
    private final int commId;
    private final int token;
    /** Receive buffers larger than this and of up to {@link #taggedUpTo} bytes take a tagged message. */
    private final long eagerMax;
    private final long taggedUpTo;
    /** What {@link #reserve} took for the tagged receives of the announcement right after it. */
    private final RmaOp[] taggedOps = new RmaOp[Limits.MAX_RECVS];
    /** Where the announcements go: the sender's mailbox, its slot size and keys. */
    private final long peerMailbox;
    private final int peerSlotBytes;
    private final long[] peerMailboxKeys;
    private final Announcement announcement = new Announcement();
    private final long[] keys = new long[Limits.MAX_DATA_RAILS];
    /** What {@link #reserve()} took, for the announcement right after it. */
    private ControlBuffers.Buffer buffer;
    private RmaOp op;
    /**
     * Tagged receives posted into the application's buffers and not yet ended, whatever became of
     * their receives: the provider may write into those buffers until each has ended.
     */
    private int taggedPosted;
    /** A posted receive could not be announced late for want of a control buffer or operation. */
    private boolean owed;
    private final RmaOp.Held taggedEnded = () -> taggedPosted--;

    ReceiveAnnouncer(CommParts parts, Connection sender, int commId, int token, long eagerMax,
            long peerMailbox, int peerSlotBytes, long[] peerMailboxKeys) {
        this.parts = parts;
        this.rails = parts.rails();
        this.pool = parts.ops();
        this.sender = sender;
        this.commId = commId;
        this.token = token;
        this.eagerMax = eagerMax;
        this.taggedUpTo = rails.taggedUpTo();
        this.peerMailbox = peerMailbox;
        this.peerSlotBytes = peerSlotBytes;
        this.peerMailboxKeys = peerMailboxKeys.clone();
    }

    /**
     * Whether a receive of {@code count} buffers of {@code sizes} needs an announcement: one whose
     * every buffer takes an eager message whole does not (a larger send into it announces itself
     * with a request to send, and is refused).
     */
    boolean needed(int count, long[] sizes) {
        boolean announce = eagerMax == 0;
        for (int i = 0; i < count; i++) {
            announce |= sizes[i] > eagerMax;
        }
        return announce;
    }

    /**
     * The buffers of a receive of {@code count} with {@code sizes} that take one tagged message (a
     * bit each): those larger than an eager message and within the tagged limit ({@link
     * RailSet#taggedUpTo()}), registered.
     */
    int taggedBuffers(int count, long[] sizes, MrHandle[] mrs) {
        int tagged = 0;
        for (int i = 0; i < count; i++) {
            if (sizes[i] > eagerMax && sizes[i] <= taggedUpTo && mrs[i] != null) {
                tagged |= 1 << i;
            }
        }
        return tagged;
    }

    /** Whether tagged receives of this communicator's are still posted, abandoned ones included. */
    boolean taggedPosted() {
        return taggedPosted > 0;
    }

    /**
     * Takes a control buffer and an operation for the next announcement, and an operation for
     * each of its {@code tagged} receives: all, or none and false.
     */
    boolean reserve(int tagged) throws RdmaException {
        buffer = parts.controlBuffers().acquire();
        if (buffer == null) {
            return false;
        }
        op = pool.acquire();
        if (op == null || !pool.acquire(taggedOps, Integer.bitCount(tagged))) {
            if (op != null) {
                pool.release(op);
                op = null;
            }
            parts.controlBuffers().release(buffer);
            buffer = null;
            return false;
        }
        return true;
    }

    /**
     * Posts the tagged receives of the {@code tagged} buffers of receive {@code seq}, before its
     * announcement goes out: the sender's message then finds its receive.
     */
    private void postTagged(RecvRequest request, int seq, int tagged, long[] addresses, long[] sizes,
            MrHandle[] mrs) {
        int k = 0;
        for (int i = 0; i < request.buffers; i++) {
            if ((tagged & (1 << i)) == 0) {
                continue;
            }
            int rail = TaggedData.rail(seq, i, parts.dataRails());
            RmaOp receive = taggedOps[k];
            taggedOps[k++] = null;
            receive.set(RmaOp.Kind.TRECV, rails.dataEndpoint(rail), rail, RmaOp.TAGGED_RECEIVE_ON_RAIL[rail],
                    request.taggedOwner);
            receive.buf = addresses[i];
            receive.len = sizes[i];
            receive.desc = mrs[i].descriptor(RailKind.DATA, rail);
            receive.peer = sender.dataPeer(rail);
            receive.tag = TaggedData.tag(token, commId, seq, i);
            receive.index = i;
            request.taggedPosted(i, receive);
            receive.held = taggedEnded;
            taggedPosted++;
            receive.submit(parts.peers().local(rail));
        }
    }

    /**
     * Announces the receives of {@code requests} in use, not announced yet, not finished and not
     * failed (small ones, announced once the sender runs ahead of them). One that cannot be announced
     * now (no control buffer or operation free) leaves the rest {@link #owed}. A failure to reserve
     * what an announcement takes condemns the peer through {@code liveness}.
     */
    void announceUnannounced(RequestPool<RecvRequest> requests, PeerLiveness liveness) {
        owed = false;
        for (int r = 0; r < requests.created(); r++) {
            RecvRequest request = requests.at(r);
            if (request.inUse() && !request.announced && !request.finished() && request.failure() == null) {
                try {
                    if (!reserve(0)) {
                        owed = true;
                        return;
                    }
                } catch (RdmaException e) {
                    liveness.condemn(e);
                    return;
                }
                announce(request, 0);
            }
        }
    }

    /** Whether late announcements are owed: {@link #announceUnannounced} is to be called again. */
    boolean owed() {
        return owed;
    }

    /**
     * Announces {@code request}, with what {@link #reserve} took; its {@code tagged} buffers get
     * their tagged receives first.
     */
    void announce(RecvRequest request, int tagged) {
        int seq = request.seq;
        int count = request.buffers;
        long[] addresses = request.address;
        long[] sizes = request.capacity;
        MrHandle[] mrs = request.mrs;
        request.announced = true;
        postTagged(request, seq, tagged, addresses, sizes, mrs);
        ControlBuffers.Buffer buffer = this.buffer;
        RmaOp op = this.op;
        this.buffer = null;
        this.op = null;
        announcement.reset(count, parts.dataRails(), seq);
        for (int i = 0; i < count; i++) {
            // A buffer that takes one tagged message is never written: it goes out with no address
            // and no key, so that its announcement hands its reader no way into the registration.
            MrHandle mr = (tagged & (1 << i)) != 0 ? null : mrs[i];
            long remote = mr == null ? 0 : mr.remoteAddress(RailKind.DATA, 0, addresses[i] - mr.address());
            for (int r = 0; r < parts.dataRails(); r++) {
                keys[r] = mr == null ? 0 : mr.key(RailKind.DATA, r);
            }
            announcement.buffer(i, remote, sizes[i], request.tag[i], request.ordinal[i], keys,
                    (tagged & (1 << i)) != 0 ? Announcement.TAGGED : 0);
        }
        // Encoded straight into the registered control buffer the write goes out from.
        int length = announcement.encode(parts.memory(), buffer.address());
        int rail = seq % parts.controlRails();
        // A message instead of a write and its notice, where writes are announced by notices.
        boolean sent = rails.noticeAfterWrite();
        op.set(sent ? RmaOp.Kind.SENDDATA : RmaOp.Kind.WRITEDATA, rails.controlEndpoint(rail), rail,
                RmaOp.CONTROL_ON_RAIL[rail], request);
        op.buf = buffer.address();
        op.len = length;
        op.desc = buffer.descriptor(rail);
        int word = Immediate.encode(Immediate.TYPE_ANNOUNCEMENT, 1, 0, sender.peerCommId(), seq);
        op.data = rails.immediate(word, sender.upperHalf(word));
        op.peer = sender.controlPeer(rail);
        op.remote = peerMailbox + (long) (seq % Limits.WINDOW) * peerSlotBytes;
        op.key = peerMailboxKeys[rail];
        op.held = buffer; // the write reads it until it ends, whatever becomes of the receive
        request.awaitOneMore();
        if (Timeline.ON) {
            Timeline.record(Timeline.ANNOUNCEMENT_SENT, request.tag[0], request.ordinal[0]);
        }
        op.submit(sender.controlQueue(rail));
    }
}
