package io.ofinet.rdma;

import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.ControlMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;

/**
 * Tells a receive communicator's sender of each posted receive: its control message — remote
 * address or offset, length, tag and data-rail keys of each buffer — encoded into a registered
 * control buffer and written into the sender's mailbox slot {@code sequence mod 256} with
 * immediate data, over control rail {@code sequence mod control rails}; or, where writes are
 * announced by notices (docs/PROTOCOL.md, "Write notices"), sent as one message into the
 * sender's posted control receives. Touched only with the endpoint held.
 */
final class ReceiveAnnouncer {
    private final RdmaEndpoint endpoint;
    private final Connection sender;
    /** Where the control messages go: the sender's mailbox, its slot size and keys. */
    private final long peerMailbox;
    private final int peerSlotBytes;
    private final long[] peerMailboxKeys;
    private final ControlMessage message = new ControlMessage();
    private final long[] keys = new long[Limits.MAX_DATA_RAILS];
    /** What {@link #reserve()} took, for the announcement right after it. */
    private ControlRailBuffer buffer;
    private RmaOp op;

    ReceiveAnnouncer(RdmaEndpoint endpoint, Connection sender, long peerMailbox, int peerSlotBytes,
            long[] peerMailboxKeys) {
        this.endpoint = endpoint;
        this.sender = sender;
        this.peerMailbox = peerMailbox;
        this.peerSlotBytes = peerSlotBytes;
        this.peerMailboxKeys = peerMailboxKeys.clone();
    }

    long peerMailbox() {
        return peerMailbox;
    }

    int peerSlotBytes() {
        return peerSlotBytes;
    }

    long peerMailboxKey(int rail) {
        return peerMailboxKeys[rail];
    }

    /** Takes a control buffer and an operation for the next announcement: both, or none and false. */
    boolean reserve() throws RdmaException {
        buffer = endpoint.pools.acquireControlBuffer();
        if (buffer == null) {
            return false;
        }
        op = endpoint.pools.acquireOp();
        if (op == null) {
            endpoint.pools.release(buffer);
            buffer = null;
            return false;
        }
        return true;
    }

    /** Announces receive {@code seq} of {@code request}, with what {@link #reserve()} took. */
    void announce(RecvRequest request, int seq, int count, long[] addresses, long[] sizes, int[] tags, MrHandle[] mrs) {
        ControlRailBuffer buffer = this.buffer;
        RmaOp op = this.op;
        this.buffer = null;
        this.op = null;
        message.reset(count, endpoint.dataRails(), seq);
        for (int i = 0; i < count; i++) {
            MrHandle mr = mrs[i];
            long remote = mr == null ? 0 : mr.remoteAddress(RailKind.DATA, 0, addresses[i] - mr.address());
            for (int r = 0; r < endpoint.dataRails(); r++) {
                keys[r] = mr == null ? 0 : mr.key(RailKind.DATA, r);
            }
            message.buffer(i, remote, sizes[i], tags[i], keys);
        }
        // Encoded straight into the registered control buffer the write goes out from.
        int length = message.encode(endpoint.memory, buffer.address);
        int rail = seq % endpoint.controlRails();
        // A message instead of a write and its notice, where writes are announced by notices.
        boolean sent = endpoint.railSet.noticeAfterWrite();
        op.set(sent ? RmaOp.Kind.SENDDATA : RmaOp.Kind.WRITEDATA, endpoint.railSet.controlEndpoint(rail), rail,
                RmaOp.CONTROL_ON_RAIL[rail], request);
        op.buf = buffer.address;
        op.len = length;
        op.desc = buffer.descriptor(rail);
        int word = Immediate.encode(Immediate.TYPE_CONTROL, 1, 0, sender.peerCommId(), seq);
        op.data = endpoint.railSet.immediate(word, sender.upperHalf(word));
        op.peer = sender.controlPeer(rail);
        op.remote = peerMailbox + (long) (seq % Limits.WINDOW) * peerSlotBytes;
        op.key = peerMailboxKeys[rail];
        request.controlBuffer = buffer;
        request.pendingOps = 1;
        op.submit(sender.controlQueue(rail));
    }
}
