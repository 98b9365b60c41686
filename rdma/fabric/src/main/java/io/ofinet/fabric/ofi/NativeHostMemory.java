package io.ofinet.fabric.ofi;

import io.ofinet.fabric.HostMemory;

/**
 * {@link HostMemory} through the active data path ({@link DataPaths}): loads and stores by FFM on
 * JDK 22+, by JNA otherwise; allocation from the C heap.
 */
public final class NativeHostMemory implements HostMemory {
    /** The one instance: there is one data path per JVM. */
    public static final NativeHostMemory INSTANCE = new NativeHostMemory();

    private final DataPath path = DataPaths.current();

    private NativeHostMemory() {
    }

    @Override
    public long allocate(long bytes) {
        return NativeMemory.allocate(bytes);
    }

    @Override
    public void free(long address) {
        NativeMemory.free(address);
    }

    @Override
    public byte getByte(long address) {
        return path.getByte(address);
    }

    @Override
    public void putByte(long address, byte value) {
        path.putByte(address, value);
    }

    @Override
    public int getInt(long address) {
        return path.getInt(address);
    }

    @Override
    public void putInt(long address, int value) {
        path.putInt(address, value);
    }

    @Override
    public long getLong(long address) {
        return path.getLong(address);
    }

    @Override
    public void putLong(long address, long value) {
        path.putLong(address, value);
    }

    @Override
    public void read(long address, byte[] target, int offset, int length) {
        path.read(address, target, offset, length);
    }

    @Override
    public void write(long address, byte[] source, int offset, int length) {
        path.write(address, source, offset, length);
    }
}
