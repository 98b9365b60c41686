package io.ofinet.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;

/**
 * The warm-up's calls, each crossing from native code into Java as NCCL's do: an upcall stub over a
 * door's operation (static, of {@link NcclTable}'s one type), called through a downcall handle. What
 * the JIT compiles for them is what it compiles for NCCL's calls: the stubs' adapters, the door, the
 * plugin and the protocol, each entered from a native frame and not inlined into the warm-up's loop.
 * Linking by address is restricted: deliberate, as the addresses are the stubs'.
 */
@SuppressWarnings("restricted")
final class WarmUpCalls {
    /** A door's operations, with their C types (the stubs' one type is the crossing's only). */
    interface Table {
        int init(long ctxOut);

        int finalize(long ctx);

        int listen(long ctx, int dev, long handle, long listenCommOut);

        int connect(long ctx, int dev, long handle, long sendCommOut);

        int accept(long listenComm, long recvCommOut);

        int regMr(long comm, long data, long size, int type, long mhandleOut);

        int deregMr(long comm, long mhandle);

        int isend(long comm, long data, long size, int tag, long mhandle, long requestOut);

        int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut);

        int test(long request, long doneOut, long sizesOut);

        int closeSend(long comm);

        int closeRecv(long comm);

        int closeListen(long comm);
    }

    /**
     * The upcalls' targets: static methods over the warm-up's door, as {@link NcclTable}'s are over
     * NCCL's, of the same one type ({@link NcclBridge#ENTRY}), so that the stubs share their adapters
     * with NCCL's. One warm-up at a time.
     */
    static final class Targets {
        private static volatile NcclDoor door;

        private Targets() {
        }

        static int init(long ctxOut, long u1, long u2, long u3, long u4, long u5, long u6) {
            return door.init(ctxOut, 0, 0, false);
        }

        static int finalize(long ctx, long u1, long u2, long u3, long u4, long u5, long u6) {
            return door.finalizeContext(ctx);
        }

        static int listen(long ctx, long dev, long handle, long listenCommOut, long u1, long u2, long u3) {
            return door.listen(ctx, (int) dev, handle, listenCommOut);
        }

        static int connect(long ctx, long dev, long handle, long sendCommOut, long u1, long u2, long u3) {
            return door.connect(ctx, (int) dev, handle, sendCommOut);
        }

        static int accept(long listenComm, long recvCommOut, long u1, long u2, long u3, long u4, long u5) {
            return door.accept(listenComm, recvCommOut);
        }

        static int regMr(long comm, long data, long size, long type, long mhandleOut, long u1, long u2) {
            return door.regMr(comm, data, size, (int) type, mhandleOut);
        }

        static int deregMr(long comm, long mhandle, long u1, long u2, long u3, long u4, long u5) {
            return door.deregMr(comm, mhandle);
        }

        static int isend(long comm, long data, long size, long tag, long mhandle, long requestOut, long u1) {
            return door.isend(comm, data, size, (int) tag, mhandle, requestOut);
        }

        static int irecv(long comm, long n, long data, long sizes, long tags, long mhandles, long requestOut) {
            return door.irecv(comm, (int) n, data, sizes, tags, mhandles, requestOut);
        }

        static int test(long request, long doneOut, long sizesOut, long u1, long u2, long u3, long u4) {
            return door.test(request, doneOut, sizesOut);
        }

        static int closeSend(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
            return door.close(comm, CommEntry.SEND);
        }

        static int closeRecv(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
            return door.close(comm, CommEntry.RECV);
        }

        static int closeListen(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
            return door.close(comm, CommEntry.LISTEN);
        }
    }

    /** {@code door}'s operations through upcall stubs that live as long as {@code arena}. */
    record Native(MethodHandle init, MethodHandle finalizeContext, MethodHandle listen, MethodHandle connect,
            MethodHandle accept, MethodHandle regMr, MethodHandle deregMr, MethodHandle isend, MethodHandle irecv,
            MethodHandle test, MethodHandle closeSend, MethodHandle closeRecv, MethodHandle closeListen)
            implements Table {

        static Native over(NcclDoor door, Arena arena) throws ReflectiveOperationException {
            Targets.door = door;
            return stubs(arena);
        }

        /** The warm-up's door is no longer the targets', so that nothing of it stays reachable. */
        static void release() {
            Targets.door = null;
        }

        private static Native stubs(Arena arena) throws ReflectiveOperationException {
            return new Native(stub("init", arena), stub("finalize", arena), stub("listen", arena),
                    stub("connect", arena), stub("accept", arena), stub("regMr", arena), stub("deregMr", arena),
                    stub("isend", arena), stub("irecv", arena), stub("test", arena), stub("closeSend", arena),
                    stub("closeRecv", arena), stub("closeListen", arena));
        }

        private static MethodHandle stub(String name, Arena arena) throws ReflectiveOperationException {
            Method m = NcclBridge.entry(Targets.class, name);
            if (m == null) {
                throw new NoSuchMethodException(Targets.class.getName() + "." + name);
            }
            FunctionDescriptor descriptor = NcclBridge.descriptor(m);
            Linker linker = Linker.nativeLinker();
            MemorySegment stub = linker.upcallStub(MethodHandles.lookup().unreflect(m), descriptor, arena);
            return linker.downcallHandle(stub, descriptor);
        }

        @Override
        public int init(long ctxOut) {
            return call(init, ctxOut, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public int finalize(long ctx) {
            return call(finalizeContext, ctx, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public int listen(long ctx, int dev, long handle, long listenCommOut) {
            return call(listen, ctx, dev, handle, listenCommOut, 0, 0, 0);
        }

        @Override
        public int connect(long ctx, int dev, long handle, long sendCommOut) {
            return call(connect, ctx, dev, handle, sendCommOut, 0, 0, 0);
        }

        @Override
        public int accept(long listenComm, long recvCommOut) {
            return call(accept, listenComm, recvCommOut, 0, 0, 0, 0, 0);
        }

        @Override
        public int regMr(long comm, long data, long size, int type, long mhandleOut) {
            return call(regMr, comm, data, size, type, mhandleOut, 0, 0);
        }

        @Override
        public int deregMr(long comm, long mhandle) {
            return call(deregMr, comm, mhandle, 0, 0, 0, 0, 0);
        }

        @Override
        public int isend(long comm, long data, long size, int tag, long mhandle, long requestOut) {
            return call(isend, comm, data, size, tag, mhandle, requestOut, 0);
        }

        @Override
        public int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
            return call(irecv, comm, n, data, sizes, tags, mhandles, requestOut);
        }

        @Override
        public int test(long request, long doneOut, long sizesOut) {
            return call(test, request, doneOut, sizesOut, 0, 0, 0, 0);
        }

        @Override
        public int closeSend(long comm) {
            return call(closeSend, comm, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public int closeRecv(long comm) {
            return call(closeRecv, comm, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public int closeListen(long comm) {
            return call(closeListen, comm, 0, 0, 0, 0, 0, 0);
        }

        /** An entry's call, its arguments first, as C's {@code OFINET_CALL} makes it. */
        private static int call(MethodHandle h, long a, long b, long c, long d, long e, long f, long g) {
            try {
                return (int) h.invokeExact(a, b, c, d, e, f, g);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        /** The door catches everything: only a fault of the crossing itself lands here. */
        private static IllegalStateException failed(Throwable t) {
            return new IllegalStateException("the warm-up's crossing failed", t);
        }
    }

    private WarmUpCalls() {
    }
}
