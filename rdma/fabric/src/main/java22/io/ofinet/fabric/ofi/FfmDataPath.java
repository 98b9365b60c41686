package io.ofinet.fabric.ofi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The data path through Java's FFM API (JDK 22+): one downcall handle per call shape, created
 * once, called address-first with the function pointer read from the object's ops table when
 * the endpoint or queue is set up. Pointers travel as {@code long}s (same ABI as {@code void*}
 * on LP64), so a call allocates nothing. Posts and completion-queue reads return at once on most
 * providers, so they are linked as critical calls: no thread-state transition around them. Where
 * a call may wait on another process ({@link DataPaths#waitsOnPeers}: libfabric 1.17's shm spins
 * on a lock in a peer's shared memory), the calls are linked as ordinary ones: a thread spinning
 * in a critical call holds off every safepoint of the JVM — its collections, and its exit.
 *
 * <p>Linking downcalls and reading memory by address are restricted methods: deliberate here, as
 * this class is the data path's native boundary. Callers run with
 * {@code --enable-native-access=ALL-UNNAMED} so that the JDK prints no warning.
 */
@SuppressWarnings("restricted")
final class FfmDataPath implements DataPath {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** Every byte of the address space, for reads and writes by address. */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    static final MethodHandle CALL2 = handle(2, true);
    static final MethodHandle CALL3 = handle(3, true);
    static final MethodHandle CALL4 = handle(4, true);
    static final MethodHandle CALL6 = handle(6, true);
    static final MethodHandle CALL7 = handle(7, true);
    static final MethodHandle CALL8 = handle(8, true);
    static final MethodHandle CALL9 = handle(9, true);

    /**
     * The same shapes linked as ordinary calls, for providers whose calls may wait on a peer: linked
     * when the first endpoint or queue of such a provider is made ({@link #endpoint}, {@link #cq}),
     * not with the class. Each shape's link generates its own classes (about 4 ms apiece in a rank's
     * {@code init}, interpreted), and a process on tcp never uses these.
     */
    static final class Waiting {
        static final MethodHandle WAIT2 = handle(2, false);
        static final MethodHandle WAIT3 = handle(3, false);
        static final MethodHandle WAIT4 = handle(4, false);
        static final MethodHandle WAIT6 = handle(6, false);
        static final MethodHandle WAIT7 = handle(7, false);
        static final MethodHandle WAIT8 = handle(8, false);
        static final MethodHandle WAIT9 = handle(9, false);

        /** Links the shapes, if they are not yet: the class's initialization does it. */
        static void link() {
        }
    }

    /** {@code long f(long, ..., long)} with {@code arity} arguments, function address first. */
    private static MethodHandle handle(int arity, boolean critical) {
        ValueLayout.OfLong[] args = new ValueLayout.OfLong[arity];
        java.util.Arrays.fill(args, J);
        FunctionDescriptor descriptor = FunctionDescriptor.of(J, args);
        return critical ? LINKER.downcallHandle(descriptor, CRITICAL) : LINKER.downcallHandle(descriptor);
    }

    @Override
    public String name() {
        return "ffm";
    }

    /** The function at {@code offset} of {@code table}; null where the provider leaves the table or it out. */
    static MemorySegment optional(long table, int offset) {
        long address = table == 0 ? 0 : ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, table + offset);
        return address == 0 ? null : MemorySegment.ofAddress(address);
    }

    static MemorySegment function(long table, int offset, String what) {
        MemorySegment fn = optional(table, offset);
        if (fn == null) {
            throw new UnsupportedOperationException(what + " is not provided by the provider");
        }
        return fn;
    }

    /** A three-argument call, linked as an ordinary call when it {@code waits} on peers. */
    static long call(boolean waits, MemorySegment fn, long a, long b, long c) {
        try {
            return waits ? (long) Waiting.WAIT3.invokeExact(fn, a, b, c) : (long) CALL3.invokeExact(fn, a, b, c);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    public EndpointCalls endpoint(long ep, boolean waitsOnPeers) {
        if (waitsOnPeers) {
            Waiting.link();
        }
        return new FfmEndpointCalls(ep, waitsOnPeers);
    }

    @Override
    public CqCalls cq(long cq, boolean waitsOnPeers) {
        if (waitsOnPeers) {
            Waiting.link();
        }
        long ops = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, cq + NativeOffsets.CQ_OPS);
        MemorySegment read = function(ops, NativeOffsets.OPS_CQ_READ, "fi_cq_read");
        MemorySegment readerr = function(ops, NativeOffsets.OPS_CQ_READERR, "fi_cq_readerr");
        MemorySegment readfrom = function(ops, NativeOffsets.OPS_CQ_READFROM, "fi_cq_readfrom");
        return new CqCalls() {
            @Override
            public long read(long buf, long count) {
                return call(waitsOnPeers, read, cq, buf, count);
            }

            @Override
            public long readfrom(long buf, long count, long src) {
                try {
                    return waitsOnPeers ? (long) Waiting.WAIT4.invokeExact(readfrom, cq, buf, count, src)
                            : (long) CALL4.invokeExact(readfrom, cq, buf, count, src);
                } catch (Throwable t) {
                    throw rethrow(t);
                }
            }

            @Override
            public long readerr(long buf, long flags) {
                return call(waitsOnPeers, readerr, cq, buf, flags);
            }
        };
    }

    @Override
    public byte getByte(long address) {
        return ALL.get(ValueLayout.JAVA_BYTE, address);
    }

    @Override
    public void putByte(long address, byte value) {
        ALL.set(ValueLayout.JAVA_BYTE, address, value);
    }

    @Override
    public void read(long address, byte[] target, int offset, int length) {
        MemorySegment.copy(ALL, ValueLayout.JAVA_BYTE, address, target, offset, length);
    }

    @Override
    public void write(long address, byte[] source, int offset, int length) {
        MemorySegment.copy(source, offset, ALL, ValueLayout.JAVA_BYTE, address, length);
    }

    @Override
    public void copy(long from, long to, long length) {
        MemorySegment.copy(ALL, from, ALL, to, length);
    }

    @Override
    public long getLong(long address) {
        return ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, address);
    }

    @Override
    public int getInt(long address) {
        return ALL.get(ValueLayout.JAVA_INT_UNALIGNED, address);
    }

    @Override
    public void putLong(long address, long value) {
        ALL.set(ValueLayout.JAVA_LONG_UNALIGNED, address, value);
    }

    @Override
    public void putInt(long address, int value) {
        ALL.set(ValueLayout.JAVA_INT_UNALIGNED, address, value);
    }
}
