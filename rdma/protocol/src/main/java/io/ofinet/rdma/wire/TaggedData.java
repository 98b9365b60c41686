package io.ofinet.rdma.wire;

/**
 * Where a receive buffer's data travels as one tagged message ({@link Announcement#TAGGED}): its
 * tag, and its data rail. Both sides compute them from what the announcement names.
 *
 * <pre>
 * 63..32 token of the receive communicator   25..13 its communicator id   12..3 the receive's
 * first message sequence number   2..0 the buffer index
 * </pre>
 *
 * The token makes a message meant for another communicator, or for an earlier process at the same
 * address, match no posted receive.
 */
public final class TaggedData {
    private TaggedData() {
    }

    /** The tag of buffer {@code index} of receive {@code seq} of receive communicator {@code commId}. */
    public static long tag(int token, int commId, int seq, int index) {
        return (token & 0xffffffffL) << 32 | (long) commId << 13 | (long) seq << 3 | index;
    }

    /** The data rail of buffer {@code index} of receive {@code seq}, of {@code dataRails}. */
    public static int rail(int seq, int index, int dataRails) {
        return (seq + index) % dataRails;
    }
}
