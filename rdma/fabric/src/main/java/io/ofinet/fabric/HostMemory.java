package io.ofinet.fabric;

/**
 * Host memory by address, for code above the provider boundary: the protocol's mailboxes, control
 * buffers and freelist blocks, and the messages it encodes into them and decodes from them. The
 * libfabric binding reads and writes through its data path (Java's FFM API on JDK 22+, JNA on 17),
 * so that an access costs what a load or store costs there and allocates nothing. Multi-byte
 * values are in the host's byte order; the wire formats are little-endian, as every host ofinet
 * runs on is.
 */
public interface HostMemory {

    /** {@code bytes} zeroed bytes from the C heap; release with {@link #free}. */
    long allocate(long bytes);

    /** Releases memory from {@link #allocate}; 0 is ignored. */
    void free(long address);

    byte getByte(long address);

    void putByte(long address, byte value);

    int getInt(long address);

    void putInt(long address, int value);

    long getLong(long address);

    void putLong(long address, long value);

    /** Copies {@code length} bytes at {@code address} into {@code target[offset..]}. */
    void read(long address, byte[] target, int offset, int length);

    /** Copies {@code source[offset..offset + length)} to {@code address}. */
    void write(long address, byte[] source, int offset, int length);

    /** Copies {@code length} bytes from {@code from} to {@code to}; the ranges do not overlap. */
    void copy(long from, long to, long length);
}
