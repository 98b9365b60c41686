package io.ofinet.rdma.wire;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/**
 * The 32-bit immediate data of every RDMA write, which is all the target learns of it:
 *
 * <pre>
 *  31..30 type (0 data segment, 1 control message, 2 error: the send was refused, 3 keepalive)
 *  29..26 segments - 1 (1..16: one per data rail at most, and the send's head); for an error, the reason - 1
 *         (1 truncated, 2 no buffer has the tag, 3 the writes did not complete)
 *  25..23 receive buffer index (0..7: a grouped receive has 8 buffers at most)
 *  22..10 communicator id (13 bits: 8192 communicators per endpoint)
 *   9..0  message sequence number (10 bits; 256 in flight)
 * </pre>
 *
 * The C++ anchor packs {@code | 4 nseg | 3 recv_idx | 15 comm_id | 10 msg_seq |}; two bits of the
 * communicator id carry the type here, so that a receiver can be told its receive failed, and so
 * that peers can tell each other they are alive. A keepalive's buffer-index field says which
 * communicator it is for and why: 0 the receiving side (alive), 1 the sending side (alive), 2 the
 * sending side (the receiver is closing: stop), 3 the receiving side (the sender has closed).
 */
public final class Immediate {
    public static final int TYPE_DATA = 0;
    public static final int TYPE_CONTROL = 1;
    public static final int TYPE_ERROR = 2;
    public static final int TYPE_KEEPALIVE = 3;
    /** Keepalive index: for the receive communicator of the connection. */
    public static final int KEEPALIVE_TO_RECEIVER = 0;
    /** Keepalive index: for the send communicator of the connection. */
    public static final int KEEPALIVE_TO_SENDER = 1;
    /** Keepalive index: the receiver is closing; the sender should stop and confirm. */
    public static final int RECEIVER_CLOSING = 2;
    /**
     * In a {@link #RECEIVER_CLOSING} notice's sequence field: the receiver closed with no receive
     * outstanding and wrote its last control message before it, so the sender's mailbox may go.
     */
    public static final int CLOSING_FINAL = 1;
    /** Keepalive index: the sender has closed and will write no more. */
    public static final int SENDER_CLOSED = 3;
    /** Keepalive side: to the send side, eager message (the sequence number) did not fit its buffer. */
    public static final int TRUNCATED_TO_SENDER = 4;
    /** Keepalive side: to the send side, eager message (the sequence number) matched no tag. */
    public static final int NO_TAG_TO_SENDER = 5;
    /** Keepalive side: to the send side, credits returned (their count where the sequence number goes). */
    public static final int CREDITS_TO_SENDER = 6;

    /** Error reason, in the segment field of an error: the send did not fit the buffer. */
    public static final int ERROR_TRUNCATED = 1;
    /** Error reason: no buffer of the posted receive had the send's tag. */
    public static final int ERROR_NO_TAG = 2;
    /** Error reason: the sender's writes did not complete in time (a data rail may be down). */
    public static final int ERROR_SEND_FAILED = 3;

    private Immediate() {
    }

    public static int encode(int type, int segments, int recvIndex, int commId, int seq) {
        if (type < 0 || type > TYPE_KEEPALIVE || segments < 1 || segments > Limits.MAX_DATA_RAILS || recvIndex < 0
                || recvIndex >= Limits.MAX_RECVS || commId < 0 || commId >= Limits.MAX_COMMS || seq < 0
                || seq >= 1 << Limits.SEQ_BITS) {
            throw new IllegalArgumentException("immediate data out of range: type " + type + ", segments "
                    + segments + ", index " + recvIndex + ", comm " + commId + ", seq " + seq);
        }
        return type << 30 | (segments - 1) << 26 | recvIndex << 23 | commId << 10 | seq;
    }

    public static int type(int data) {
        return data >>> 30;
    }

    public static int segments(int data) {
        return ((data >>> 26) & 0xf) + 1;
    }

    public static int recvIndex(int data) {
        return (data >>> 23) & 0x7;
    }

    public static int commId(int data) {
        return (data >>> 10) & (Limits.MAX_COMMS - 1);
    }

    public static int seq(int data) {
        return data & ((1 << Limits.SEQ_BITS) - 1);
    }

    /**
     * Checks what a peer sent: a data write in more segments than there are data rails and a head,
     * an error with an unknown reason, or a keepalive for neither side, is a remote error.
     */
    public static int check(long data, int dataRails) throws RdmaException {
        if (data < 0 || data > 0xffffffffL) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Long.toHexString(data)
                    + ": more than 32 bits");
        }
        int d = (int) data;
        if (type(d) == TYPE_KEEPALIVE && recvIndex(d) > CREDITS_TO_SENDER) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Integer.toHexString(d)
                    + ": keepalive for side " + recvIndex(d));
        }
        if (type(d) == TYPE_ERROR && (segments(d) < ERROR_TRUNCATED || segments(d) > ERROR_SEND_FAILED)) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Integer.toHexString(d)
                    + ": unknown error reason " + segments(d));
        }
        if (type(d) != TYPE_ERROR && segments(d) > dataRails + 1) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Integer.toHexString(d)
                    + ": " + segments(d) + " segments on " + dataRails + " data rails");
        }
        return d;
    }
}
