package io.ofinet.fabric.ofi;

import io.ofinet.fabric.FiErrno;
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
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private static final MethodHandle CALL2 = handle(2, true);
    private static final MethodHandle CALL3 = handle(3, true);
    private static final MethodHandle CALL4 = handle(4, true);
    private static final MethodHandle CALL6 = handle(6, true);
    private static final MethodHandle CALL7 = handle(7, true);
    private static final MethodHandle CALL8 = handle(8, true);
    private static final MethodHandle CALL9 = handle(9, true);

    /**
     * The same shapes linked as ordinary calls, for providers whose calls may wait on a peer: linked
     * when the first endpoint or queue of such a provider is made ({@link #endpoint}, {@link #cq}),
     * not with the class. Each shape's link generates its own classes (about 4 ms apiece in a rank's
     * {@code init}, interpreted), and a process on tcp never uses these.
     */
    private static final class Waiting {
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
    private static long call(boolean waits, MemorySegment fn, long a, long b, long c) {
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

    private static final class FfmEndpointCalls implements EndpointCalls {
        private final long ep;
        private final MemorySegment send;
        private final MemorySegment recv;
        private final MemorySegment senddata;
        private final MemorySegment sendmsg;
        private final MemorySegment recvmsg;
        private final MemorySegment write;
        private final MemorySegment writedata;
        private final MemorySegment read;
        private final MemorySegment writemsg;
        private final MemorySegment readmsg;
        private final MemorySegment trecv;
        private final MemorySegment tsenddata;
        private final MemorySegment cancel;
        /** Whether its calls may wait on a peer: linked as ordinary calls then. */
        private final boolean waits;

        FfmEndpointCalls(long ep, boolean waitsOnPeers) {
            this.ep = ep;
            this.waits = waitsOnPeers;
            long msg = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_MSG);
            long rma = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_RMA);
            long tagged = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_TAGGED);
            long ops = ALL.get(ValueLayout.JAVA_LONG_UNALIGNED, ep + NativeOffsets.EP_OPS);
            trecv = optional(tagged, NativeOffsets.OPS_TAGGED_RECV);
            tsenddata = optional(tagged, NativeOffsets.OPS_TAGGED_SENDDATA);
            cancel = optional(ops, NativeOffsets.OPS_EP_CANCEL);
            send = function(msg, NativeOffsets.OPS_MSG_SEND, "fi_send");
            recv = function(msg, NativeOffsets.OPS_MSG_RECV, "fi_recv");
            senddata = function(msg, NativeOffsets.OPS_MSG_SENDDATA, "fi_senddata");
            sendmsg = function(msg, NativeOffsets.OPS_MSG_SENDMSG, "fi_sendmsg");
            recvmsg = function(msg, NativeOffsets.OPS_MSG_RECVMSG, "fi_recvmsg");
            write = function(rma, NativeOffsets.OPS_RMA_WRITE, "fi_write");
            writedata = function(rma, NativeOffsets.OPS_RMA_WRITEDATA, "fi_writedata");
            read = function(rma, NativeOffsets.OPS_RMA_READ, "fi_read");
            writemsg = function(rma, NativeOffsets.OPS_RMA_WRITEMSG, "fi_writemsg");
            readmsg = function(rma, NativeOffsets.OPS_RMA_READMSG, "fi_readmsg");
        }

        @Override
        public long send(long buf, long len, long desc, long dest, long context) {
            return call6(send, buf, len, desc, dest, context);
        }

        @Override
        public long recv(long buf, long len, long desc, long src, long context) {
            return call6(recv, buf, len, desc, src, context);
        }

        /** A call of the endpoint's function {@code fn} with five arguments after the endpoint. */
        private long call6(MemorySegment fn, long a, long b, long c, long d, long e) {
            try {
                return waits ? (long) Waiting.WAIT6.invokeExact(fn, ep, a, b, c, d, e)
                        : (long) CALL6.invokeExact(fn, ep, a, b, c, d, e);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        @Override
        public long senddata(long buf, long len, long desc, long data, long dest, long context) {
            try {
                return waits ? (long) Waiting.WAIT7.invokeExact(senddata, ep, buf, len, desc, data, dest, context)
                        : (long) CALL7.invokeExact(senddata, ep, buf, len, desc, data, dest, context);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        @Override
        public long write(long buf, long len, long desc, long dest, long addr, long key, long context) {
            return call8(write, buf, len, desc, dest, addr, key, context);
        }

        @Override
        public long writedata(long buf, long len, long desc, long data, long dest, long addr, long key,
                long context) {
            try {
                if (waits) {
                    return (long) Waiting.WAIT9.invokeExact(writedata, ep, buf, len, desc, data, dest, addr, key,
                            context);
                }
                return (long) CALL9.invokeExact(writedata, ep, buf, len, desc, data, dest, addr, key, context);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        @Override
        public long read(long buf, long len, long desc, long src, long addr, long key, long context) {
            return call8(read, buf, len, desc, src, addr, key, context);
        }

        @Override
        public long sendmsg(long msg, long flags) {
            return call(waits, sendmsg, ep, msg, flags);
        }

        @Override
        public long recvmsg(long msg, long flags) {
            return call(waits, recvmsg, ep, msg, flags);
        }

        @Override
        public long writemsg(long msg, long flags) {
            return call(waits, writemsg, ep, msg, flags);
        }

        @Override
        public long readmsg(long msg, long flags) {
            return call(waits, readmsg, ep, msg, flags);
        }

        @Override
        public long trecv(long buf, long len, long desc, long src, long tag, long ignore, long context) {
            return trecv == null ? -FiErrno.FI_ENOSYS : call8(trecv, buf, len, desc, src, tag, ignore, context);
        }

        @Override
        public long tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context) {
            return tsenddata == null ? -FiErrno.FI_ENOSYS : call8(tsenddata, buf, len, desc, data, dest, tag, context);
        }

        /** A call of the endpoint's function {@code fn} with seven arguments after the endpoint. */
        private long call8(MemorySegment fn, long a, long b, long c, long d, long e, long f, long g) {
            try {
                return waits ? (long) Waiting.WAIT8.invokeExact(fn, ep, a, b, c, d, e, f, g)
                        : (long) CALL8.invokeExact(fn, ep, a, b, c, d, e, f, g);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }

        @Override
        public long cancel(long context) {
            if (cancel == null) {
                return -FiErrno.FI_ENOSYS;
            }
            try {
                return waits ? (long) Waiting.WAIT2.invokeExact(cancel, ep, context)
                        : (long) CALL2.invokeExact(cancel, ep, context);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }
}
