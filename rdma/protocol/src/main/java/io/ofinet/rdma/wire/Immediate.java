package io.ofinet.rdma.wire;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/**
 * The 32-bit immediate data of every RDMA write, and of every zero-byte message that carries only
 * it, which is all the target learns of it:
 *
 * <pre>
 *  31..30 type: {@link #TYPE_DATA} 0 data (a segment of a send, an eager message, a zero-byte
 *         send, or a write's notice), {@link #TYPE_ANNOUNCEMENT} 1 an announcement, {@link
 *         #TYPE_ERROR} 2 an error (the send was refused or failed), {@link #TYPE_SIGNAL} 3 a signal
 *  29..26 segments - 1 (1..16: one per data rail at most, and the send's eager head); for an error,
 *         the reason - 1 (1 truncated, 2 no buffer has the tag, 3 the writes did not complete)
 *  25..23 receive buffer index (0..7: a grouped receive has 8 buffers at most); for a signal, its
 *         code ({@link Signal}): 0 keepalive to the receiver, 1 keepalive to the sender, 2 the
 *         receiver is closing, 3 the sender has closed, 4 an eager message was truncated, 5 an eager
 *         message matched no tag, 6 credits returned
 *  22..10 communicator id (13 bits: 8192 communicators per endpoint)
 *   9..0  message sequence number (10 bits; 256 in flight); for a signal, the value it carries
 * </pre>
 *
 * The C++ anchor packs {@code | 4 nseg | 3 recv_idx | 15 comm_id | 10 msg_seq |}; two bits of the
 * communicator id carry the type here, so that a receiver can be told its receive failed, and so
 * that peers can signal each other: that they are alive, that they close, that credits return.
 */
public final class Immediate {
    public static final int TYPE_DATA = 0;
    public static final int TYPE_ANNOUNCEMENT = 1;
    public static final int TYPE_ERROR = 2;
    public static final int TYPE_SIGNAL = 3;

    /** Error reason, in the segment field of an error: the send did not fit the buffer. */
    public static final int ERROR_TRUNCATED = 1;
    /**
     * Error reason 2, no longer sent: a send whose tag no buffer of its receive had (before
     * messages met buffers by tag and ordinal, handshake version 4). One arriving breaks the protocol.
     */
    public static final int ERROR_RETIRED = 2;
    /** Error reason: the sender's writes did not complete: they failed, or stalled past peerTimeoutMs. */
    public static final int ERROR_SEND_FAILED = 3;

    private Immediate() {
    }

    public static int encode(int type, int segments, int recvIndex, int commId, int seq) {
        if (type < 0 || type > TYPE_SIGNAL || segments < 1 || segments > Limits.MAX_DATA_RAILS || recvIndex < 0
                || recvIndex >= Limits.MAX_RECVS || commId < 0 || commId >= Limits.MAX_COMMS || seq < 0
                || seq >= 1 << Limits.SEQ_BITS) {
            throw new IllegalArgumentException("immediate data out of range: type " + type + ", segments "
                    + segments + ", index " + recvIndex + ", comm " + commId + ", seq " + seq);
        }
        return type << 30 | (segments - 1) << 26 | recvIndex << 23 | commId << 10 | seq;
    }

    /** The immediate data of {@code signal} to communicator {@code commId}, carrying {@code value}. */
    public static int signal(Signal signal, int commId, int value) {
        return encode(TYPE_SIGNAL, 1, signal.code(), commId, value);
    }

    /** The signal of immediate data of type {@link #TYPE_SIGNAL} that {@link #check} passed. */
    public static Signal signal(int data) {
        return Signal.from(recvIndex(data));
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
        return data & Limits.SEQ_MASK;
    }

    /**
     * Checks what a peer sent: a data write in more segments than there are data rails and an eager
     * head, an error with an unknown reason, or a signal of an unknown code, is a remote error.
     */
    public static int check(long data, int dataRails) throws RdmaException {
        if (data < 0 || data > 0xffffffffL) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Long.toHexString(data)
                    + ": more than 32 bits");
        }
        int d = (int) data;
        if (type(d) == TYPE_SIGNAL && !Signal.known(recvIndex(d))) {
            throw new RdmaException(ErrorCategory.REMOTE, "malformed immediate data 0x" + Integer.toHexString(d)
                    + ": signal of unknown code " + recvIndex(d));
        }
        if (type(d) == TYPE_ERROR && (segments(d) < ERROR_TRUNCATED || segments(d) > ERROR_SEND_FAILED
                || segments(d) == ERROR_RETIRED)) {
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
