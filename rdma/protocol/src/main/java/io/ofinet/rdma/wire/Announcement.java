package io.ofinet.rdma.wire;

import io.ofinet.fabric.HostMemory;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/**
 * What a receiver RDMA-writes into the sender's mailbox for each posted receive: where the sender
 * may write, per buffer of the grouped receive. Mutable and reused: decoding fills it, so that the
 * data path allocates nothing.
 *
 * <pre>
 *  0 u8 type (1 = receive posted)   1 u8 buffers (1..8)   2 u8 data rails (1..16)   3 u8 reserved
 *  4 u16 message sequence (0..1023) 6 u16 reserved
 *  8 per buffer: u64 address (remote address or offset)   u64 length   u32 tag
 *                u8 buffer index (0..buffers-1)   u8 flags   u16 ordinal   u64 key per data rail
 * </pre>
 *
 * <p>Flags: {@link #TAGGED} — the receiver posted a tagged receive for the buffer, and takes its
 * data as one tagged message ({@link TaggedData}) instead of writes.
 */
public final class Announcement {
    static final int TYPE_RECV_POSTED = 1;
    static final int HEADER = 8;
    /** A buffer's flag: it takes one tagged message, not writes. */
    public static final int TAGGED = 1;

    private final WireReader reader = new WireReader("announcement", ErrorCategory.REMOTE);
    private final WireWriter writer = new WireWriter(new byte[0]);
    private int buffers;
    private int dataRails;
    private int sequence;
    private final long[] address = new long[Limits.MAX_RECVS];
    private final long[] length = new long[Limits.MAX_RECVS];
    private final int[] tag = new int[Limits.MAX_RECVS];
    private final int[] index = new int[Limits.MAX_RECVS];
    private final int[] flags = new int[Limits.MAX_RECVS];
    /** Per buffer: how many buffers with its tag the communicator's receives had before it, modulo 2^16. */
    private final int[] ordinal = new int[Limits.MAX_RECVS];
    private final long[][] keys = new long[Limits.MAX_RECVS][Limits.MAX_DATA_RAILS];

    /** Bytes of one buffer's entry. */
    static int entryBytes(int dataRails) {
        return 24 + 8 * dataRails;
    }

    /** Bytes of the largest message for this many data rails: the size of a mailbox slot. */
    public static int maxBytes(int dataRails) {
        return HEADER + Limits.MAX_RECVS * entryBytes(dataRails);
    }

    /** Starts a message for {@code count} buffers on {@code rails} data rails. */
    public Announcement reset(int count, int rails, int seq) {
        if (count < 1 || count > Limits.MAX_RECVS || rails < 1 || rails > Limits.MAX_DATA_RAILS
                || seq < 0 || seq >= 1 << Limits.SEQ_BITS) {
            throw new IllegalArgumentException("announcement of " + count + " buffers, " + rails
                    + " rails, sequence " + seq);
        }
        this.buffers = count;
        this.dataRails = rails;
        this.sequence = seq;
        return this;
    }

    /**
     * Sets buffer {@code i}, the {@code bufferOrdinal}-th with its tag on the communicator, with its
     * {@code bufferFlags} ({@link #TAGGED}).
     */
    public Announcement buffer(int i, long remoteAddress, long bytes, int bufferTag, int bufferOrdinal,
            long[] railKeys, int bufferFlags) {
        address[i] = remoteAddress;
        ordinal[i] = bufferOrdinal & Limits.ORDINAL_MASK;
        length[i] = bytes;
        tag[i] = bufferTag;
        index[i] = i;
        flags[i] = bufferFlags;
        System.arraycopy(railKeys, 0, keys[i], 0, dataRails);
        return this;
    }

    public int buffers() {
        return buffers;
    }

    public int dataRails() {
        return dataRails;
    }

    public int sequence() {
        return sequence;
    }

    public long address(int i) {
        return address[i];
    }

    public long length(int i) {
        return length[i];
    }

    public int tag(int i) {
        return tag[i];
    }

    /** How many buffers with its tag the communicator's receives had before buffer {@code i}, modulo 2^16. */
    public int ordinal(int i) {
        return ordinal[i];
    }

    public int index(int i) {
        return index[i];
    }

    /** Whether buffer {@code i} takes one tagged message ({@link #TAGGED}). */
    public boolean tagged(int i) {
        return (flags[i] & TAGGED) != 0;
    }

    public long key(int i, int rail) {
        return keys[i][rail];
    }

    /** Encodes into {@code out}; returns the length. */
    public int encode(byte[] out) {
        return encode(writer.reset(out));
    }

    /**
     * Encodes straight into native memory at {@code address} (a registered control buffer, sized
     * for {@link #maxBytes}); returns the length.
     */
    public int encode(HostMemory memory, long address) {
        return encode(writer.reset(memory, address));
    }

    private int encode(WireWriter w) {
        w.u8(TYPE_RECV_POSTED).u8(buffers).u8(dataRails).u8(0).u16(sequence).u16(0);
        for (int i = 0; i < buffers; i++) {
            w.i64(address[i]).i64(length[i]).i32(tag[i]).u8(index[i]).u8(flags[i]).u16(ordinal[i]);
            for (int r = 0; r < dataRails; r++) {
                w.i64(keys[i][r]);
            }
        }
        return w.position();
    }

    /**
     * Decodes a message a peer wrote, checking it against what this side expects.
     *
     * @param expectedRails the data rails of the connection
     * @param expectedSeq the sequence number of the slot it was written to
     */
    public Announcement decode(byte[] bytes, int limit, int expectedRails, int expectedSeq) throws RdmaException {
        return decode(reader.reset(bytes, limit), expectedRails, expectedSeq);
    }

    /**
     * Decodes the {@code limit} bytes at {@code address} in native memory (a mailbox slot a peer
     * wrote into), with the same checks as {@link #decode(byte[], int, int, int)}.
     */
    public Announcement decode(HostMemory memory, long address, int limit, int expectedRails, int expectedSeq)
            throws RdmaException {
        return decode(reader.reset(memory, address, limit), expectedRails, expectedSeq);
    }

    private Announcement decode(WireReader r, int expectedRails, int expectedSeq) throws RdmaException {
        r.range(r.u8("type"), TYPE_RECV_POSTED, TYPE_RECV_POSTED, "type");
        int count = r.range(r.u8("buffers"), 1, Limits.MAX_RECVS, "buffers");
        int rails = r.range(r.u8("data rails"), expectedRails, expectedRails, "data rails");
        r.skip(1, "reserved");
        int seq = r.range(r.u16("sequence"), expectedSeq, expectedSeq, "sequence");
        r.skip(2, "reserved");
        for (int i = 0; i < count; i++) {
            address[i] = r.i64("address");
            long len = r.i64("length");
            if (len < 0) {
                throw r.fail("negative length " + len);
            }
            length[i] = len;
            tag[i] = r.i32("tag");
            index[i] = r.range(r.u8("buffer index"), 0, count - 1, "buffer index");
            flags[i] = r.range(r.u8("flags"), 0, TAGGED, "flags");
            ordinal[i] = r.u16("ordinal");
            for (int k = 0; k < rails; k++) {
                keys[i][k] = r.i64("key");
            }
        }
        this.buffers = count;
        this.dataRails = rails;
        this.sequence = seq;
        return this;
    }
}
