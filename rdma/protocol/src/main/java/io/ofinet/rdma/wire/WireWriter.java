package io.ofinet.rdma.wire;

import io.ofinet.fabric.HostMemory;
import java.nio.ByteOrder;

/**
 * Little-endian writes into a byte array, or straight into native memory (a registered buffer on
 * the data path) through {@link HostMemory}; the caller sizes the target.
 */
final class WireWriter {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private byte[] bytes;
    private HostMemory memory;
    private long base;
    private int position;

    WireWriter(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Starts writing another message: writers on the data path are reused. */
    WireWriter reset(byte[] target) {
        this.bytes = target;
        this.memory = null;
        this.position = 0;
        return this;
    }

    /** Starts writing another message at {@code address}, in native memory. */
    WireWriter reset(HostMemory target, long address) {
        this.bytes = null;
        this.memory = target;
        this.base = address;
        this.position = 0;
        return this;
    }

    private void put(byte v) {
        if (memory != null) {
            memory.putByte(base + position++, v);
        } else {
            bytes[position++] = v;
        }
    }

    int position() {
        return position;
    }

    WireWriter u8(int v) {
        put((byte) v);
        return this;
    }

    WireWriter u16(int v) {
        put((byte) v);
        put((byte) (v >>> 8));
        return this;
    }

    WireWriter i32(int v) {
        if (memory != null && LITTLE_ENDIAN) {
            memory.putInt(base + position, v);
            position += 4;
            return this;
        }
        for (int i = 0; i < 4; i++) {
            put((byte) (v >>> (8 * i)));
        }
        return this;
    }

    WireWriter i64(long v) {
        if (memory != null && LITTLE_ENDIAN) {
            memory.putLong(base + position, v);
            position += 8;
            return this;
        }
        for (int i = 0; i < 8; i++) {
            put((byte) (v >>> (8 * i)));
        }
        return this;
    }

    WireWriter bytes(byte[] b) {
        if (memory != null) {
            memory.write(base + position, b, 0, b.length);
        } else {
            System.arraycopy(b, 0, bytes, position, b.length);
        }
        position += b.length;
        return this;
    }

    WireWriter zeros(int n) {
        for (int i = 0; i < n; i++) {
            put((byte) 0);
        }
        return this;
    }
}
