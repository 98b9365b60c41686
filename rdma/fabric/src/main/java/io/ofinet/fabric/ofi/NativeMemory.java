package io.ofinet.fabric.ofi;

import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/**
 * Host memory by address: allocation, copies and element access for code outside this package
 * (tests, the in-memory provider) that must not import JNA itself.
 */
public final class NativeMemory {
    private static final Pointer BASE = Ops.BASE;

    private NativeMemory() {
    }

    /** Host memory through the active data path (FFM on JDK 22+, JNA otherwise). */
    public static io.ofinet.fabric.HostMemory host() {
        return DataPaths.current();
    }

    /** {@code size} zeroed bytes from the C heap; release with {@link #free}. */
    public static long allocate(long size) {
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size);
        }
        Pointer p = LibC.INSTANCE.calloc(1, Math.max(1, size));
        if (p == null) {
            throw new OutOfMemoryError("calloc(" + size + ") failed");
        }
        NativeUsage.allocated(Pointer.nativeValue(p), size);
        return Pointer.nativeValue(p);
    }

    public static void free(long address) {
        if (address != 0) {
            NativeUsage.freed(address);
            LibC.INSTANCE.free(new Pointer(address));
        }
    }

    /** The address of a direct buffer's first byte. */
    public static long addressOf(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer: heap memory cannot be registered");
        }
        return DataPaths.current().addressOf(buffer);
    }

    /** memmove: the ranges may overlap. Through the active data path, which allocates nothing. */
    public static void copy(long dst, long src, long length) {
        DataPaths.current().copy(src, dst, length);
    }

    public static byte getByte(long address) {
        return BASE.getByte(address);
    }

    public static void putByte(long address, byte value) {
        BASE.setByte(address, value);
    }

    public static long getLong(long address) {
        return BASE.getLong(address);
    }

    public static void putLong(long address, long value) {
        BASE.setLong(address, value);
    }

    public static int getInt(long address) {
        return BASE.getInt(address);
    }

    public static void putInt(long address, int value) {
        BASE.setInt(address, value);
    }

    public static void fill(long address, long length, byte value) {
        if (length > 0) {
            new Pointer(address).setMemory(0, length, value);
        }
    }

    public static void write(long address, byte[] source, int offset, int length) {
        BASE.write(address, source, offset, length);
    }

    public static void read(long address, byte[] target, int offset, int length) {
        BASE.read(address, target, offset, length);
    }
}
