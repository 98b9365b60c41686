package io.ofinet.nccl;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * C memory at the addresses NCCL passes, read and written through one segment over the whole
 * address space: no segment is made per call, so the data path allocates nothing. Reading memory by
 * address is a restricted method: deliberate, as the addresses are NCCL's.
 */
@SuppressWarnings("restricted")
final class CMemory {
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private CMemory() {
    }

    static long getLong(long address) {
        return ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, address);
    }

    static void putLong(long address, long value) {
        ALL.set(ValueLayout.JAVA_LONG_UNALIGNED, address, value);
    }

    static int getInt(long address) {
        return ALL.get(ValueLayout.JAVA_INT_UNALIGNED, address);
    }

    static void putInt(long address, int value) {
        ALL.set(ValueLayout.JAVA_INT_UNALIGNED, address, value);
    }

    static void putShort(long address, short value) {
        ALL.set(ValueLayout.JAVA_SHORT_UNALIGNED, address, value);
    }

    static void putFloat(long address, float value) {
        ALL.set(ValueLayout.JAVA_FLOAT_UNALIGNED, address, value);
    }

    static byte[] getBytes(long address, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(ALL, ValueLayout.JAVA_BYTE, address, bytes, 0, length);
        return bytes;
    }

    /** Writes {@code bytes} and zeroes the rest of {@code length} bytes. */
    static void putBytes(long address, byte[] bytes, int length) {
        MemorySegment.copy(bytes, 0, ALL, ValueLayout.JAVA_BYTE, address, bytes.length);
        ALL.asSlice(address + bytes.length, length - bytes.length).fill((byte) 0);
    }

    /** The NUL-terminated string at {@code address}. */
    static String getString(long address) {
        return ALL.getString(address);
    }
}
