package io.ofinet.fabric.testing;

import io.ofinet.fabric.ofi.NativeMemory;

/** A zeroed block of host memory for tests, freed on close. */
public final class HostBuffer implements AutoCloseable {
    public final long address;
    public final long size;
    private boolean freed;

    public HostBuffer(long size) {
        this.size = size;
        this.address = NativeMemory.allocate(size);
    }

    /** Fills bytes with a pattern derived from the seed, so that any misplacement shows. */
    public HostBuffer pattern(int seed) {
        for (long i = 0; i < size; i++) {
            NativeMemory.putByte(address + i, (byte) (seed + i * 31));
        }
        return this;
    }

    public HostBuffer fill(byte value) {
        NativeMemory.fill(address, size, value);
        return this;
    }

    public byte get(long offset) {
        return NativeMemory.getByte(address + offset);
    }

    public byte[] bytes(long offset, int length) {
        byte[] out = new byte[length];
        NativeMemory.read(address + offset, out, 0, length);
        return out;
    }

    @Override
    public void close() {
        if (!freed) {
            NativeMemory.free(address);
            freed = true;
        }
    }
}
