package io.ofinet.rdma.wire;

/** The limits the wire formats imply; docs/PROTOCOL.md explains each. */
public final class Limits {
    private Limits() {
    }

    /** Data rails per device: the segment count of a write has 4 bits. */
    public static final int MAX_DATA_RAILS = 16;
    /** Control rails per device. */
    public static final int MAX_CONTROL_RAILS = 16;
    /** Buffers of one grouped receive: the receive index has 3 bits. */
    public static final int MAX_RECVS = 8;
    /** Bits of a communicator id in immediate data. */
    public static final int COMM_ID_BITS = 13;
    /** Communicators per endpoint and direction. */
    public static final int MAX_COMMS = 1 << COMM_ID_BITS;
    /** Bits of a message sequence number in immediate data. */
    public static final int SEQ_BITS = 10;
    /** What keeps a count or number modulo 2^{@link #SEQ_BITS}, as the immediate data carries it. */
    public static final int SEQ_MASK = (1 << SEQ_BITS) - 1;
    /**
     * Bits of an ordinal on the wire: the k-th send with a tag fills the k-th receive buffer with
     * that tag, and both sides number them per tag modulo 2^16.
     */
    public static final int ORDINAL_BITS = 16;
    public static final int ORDINAL_MASK = (1 << ORDINAL_BITS) - 1;
    /** Messages in flight per communicator: half the sequence space, so that wrap-around is unambiguous. */
    public static final int WINDOW = 256;
    /**
     * Eager messages and requests to send a send communicator may have that the receiver has not
     * used up (its credits, which the receiver returns).
     */
    public static final int CREDITS = 64;
    /** Bytes of an endpoint address on the wire (sockaddr_in6 is 28; shm names are longer). */
    public static final int MAX_ADDRESS_BYTES = 112;
    /** Bytes of a listen handle, as NCCL's NCCL_NET_HANDLE_MAXSIZE. */
    public static final int HANDLE_BYTES = 128;
}
