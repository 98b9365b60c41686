package io.ofinet.rdma.wire;

import io.ofinet.fabric.HostMemory;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.nio.ByteOrder;

/**
 * Bounds-checked little-endian reads over a byte array, or straight from native memory (a
 * registered buffer a peer wrote into) through {@link HostMemory}. Every failure is an {@link
 * RdmaException} naming what was being read; never an index error, never a read past the limit.
 */
final class WireReader {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private byte[] bytes;
    private HostMemory memory;
    private long base;
    private int limit;
    private final String what;
    private final ErrorCategory category;
    private int position;

    /**
     * @param what what is decoded, for messages (e.g. "handshake message")
     * @param category {@link ErrorCategory#REMOTE} for what a peer sent, INVALID_ARGUMENT for
     *     what the caller passed
     */
    WireReader(byte[] bytes, int length, String what, ErrorCategory category) throws RdmaException {
        this(what, category);
        reset(bytes, length);
    }

    /**
     * A reader with nothing to read until {@link #reset} points it at a message: one made with its
     * owner, so that the data path neither allocates one nor tests whether it has one.
     */
    WireReader(String what, ErrorCategory category) {
        this.what = what;
        this.category = category;
        this.bytes = new byte[0];
    }

    /** Starts reading another message: readers on the data path are reused. */
    WireReader reset(byte[] source, int length) throws RdmaException {
        if (length < 0 || length > source.length) {
            throw fail("length " + length + " outside the " + source.length + "-byte buffer");
        }
        this.bytes = source;
        this.memory = null;
        this.limit = length;
        this.position = 0;
        return this;
    }

    /** Starts reading another message of {@code length} bytes at {@code address}, in native memory. */
    WireReader reset(HostMemory source, long address, int length) throws RdmaException {
        if (length < 0) {
            throw fail("negative length " + length);
        }
        this.bytes = null;
        this.memory = source;
        this.base = address;
        this.limit = length;
        this.position = 0;
        return this;
    }

    private int at(int offset) {
        return (memory != null ? memory.getByte(base + offset) : bytes[offset]) & 0xff;
    }

    RdmaException fail(String why) {
        return new RdmaException(category, "malformed " + what + ": " + why);
    }

    int position() {
        return position;
    }

    int remaining() {
        return limit - position;
    }

    private void need(int n, String field) throws RdmaException {
        if (n > limit - position) {
            throw fail("truncated at " + field + " (offset " + position + ", " + (limit - position)
                    + " bytes left, " + n + " needed)");
        }
    }

    int u8(String field) throws RdmaException {
        need(1, field);
        return at(position++);
    }

    int u16(String field) throws RdmaException {
        need(2, field);
        int v = at(position) | at(position + 1) << 8;
        position += 2;
        return v;
    }

    int i32(String field) throws RdmaException {
        need(4, field);
        int v = memory != null && LITTLE_ENDIAN ? memory.getInt(base + position)
                : at(position) | at(position + 1) << 8 | at(position + 2) << 16 | at(position + 3) << 24;
        position += 4;
        return v;
    }

    long u32(String field) throws RdmaException {
        return i32(field) & 0xffffffffL;
    }

    long i64(String field) throws RdmaException {
        if (memory != null && LITTLE_ENDIAN) {
            need(8, field);
            long v = memory.getLong(base + position);
            position += 8;
            return v;
        }
        long low = u32(field);
        long high = u32(field);
        return low | high << 32;
    }

    byte[] bytes(int n, String field) throws RdmaException {
        need(n, field);
        byte[] out;
        if (memory != null) {
            out = new byte[n];
            memory.read(base + position, out, 0, n);
        } else {
            out = java.util.Arrays.copyOfRange(bytes, position, position + n);
        }
        position += n;
        return out;
    }

    void skip(int n, String field) throws RdmaException {
        need(n, field);
        position += n;
    }

    /** A value that must lie in {@code [min, max]}. */
    int range(int value, int min, int max, String field) throws RdmaException {
        if (value < min || value > max) {
            throw fail(field + " " + value + " outside " + min + ".." + max);
        }
        return value;
    }
}
