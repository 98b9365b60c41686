package io.ofinet.rdma.wire;

/** Little-endian writes into a byte array; the caller sizes the array. */
final class WireWriter {
    private byte[] bytes;
    private int position;

    WireWriter(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Starts writing another message: writers on the data path are reused. */
    WireWriter reset(byte[] target) {
        this.bytes = target;
        this.position = 0;
        return this;
    }

    int position() {
        return position;
    }

    WireWriter u8(int v) {
        bytes[position++] = (byte) v;
        return this;
    }

    WireWriter u16(int v) {
        bytes[position++] = (byte) v;
        bytes[position++] = (byte) (v >>> 8);
        return this;
    }

    WireWriter i32(int v) {
        for (int i = 0; i < 4; i++) {
            bytes[position++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    WireWriter i64(long v) {
        for (int i = 0; i < 8; i++) {
            bytes[position++] = (byte) (v >>> (8 * i));
        }
        return this;
    }

    WireWriter bytes(byte[] b) {
        System.arraycopy(b, 0, bytes, position, b.length);
        position += b.length;
        return this;
    }

    WireWriter zeros(int n) {
        java.util.Arrays.fill(bytes, position, position + n, (byte) 0);
        position += n;
        return this;
    }
}
