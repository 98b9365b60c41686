package io.ofinet.rdma.wire;

import io.ofinet.rdma.ErrorCategory;
import io.ofinet.rdma.RdmaException;

/**
 * Bounds-checked little-endian reads over a byte array. Every failure is an {@link
 * RdmaException} naming what was being read; never an index error.
 */
final class WireReader {
    private byte[] bytes;
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
        this.what = what;
        this.category = category;
        reset(bytes, length);
    }

    /** Starts reading another message: readers on the data path are reused. */
    WireReader reset(byte[] source, int length) throws RdmaException {
        if (length < 0 || length > source.length) {
            throw fail("length " + length + " outside the " + source.length + "-byte buffer");
        }
        this.bytes = source;
        this.limit = length;
        this.position = 0;
        return this;
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
        return bytes[position++] & 0xff;
    }

    int u16(String field) throws RdmaException {
        need(2, field);
        int v = (bytes[position] & 0xff) | (bytes[position + 1] & 0xff) << 8;
        position += 2;
        return v;
    }

    int i32(String field) throws RdmaException {
        need(4, field);
        int v = (bytes[position] & 0xff) | (bytes[position + 1] & 0xff) << 8 | (bytes[position + 2] & 0xff) << 16
                | (bytes[position + 3] & 0xff) << 24;
        position += 4;
        return v;
    }

    long u32(String field) throws RdmaException {
        return i32(field) & 0xffffffffL;
    }

    long i64(String field) throws RdmaException {
        long low = u32(field);
        long high = u32(field);
        return low | high << 32;
    }

    byte[] bytes(int n, String field) throws RdmaException {
        need(n, field);
        byte[] out = java.util.Arrays.copyOfRange(bytes, position, position + n);
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
