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
 * door's operation (static, with {@link NcclTable}'s signatures), called through a downcall handle. What
 * the JIT compiles for them is what it compiles for NCCL's calls: the stubs' adapters, the door, the
 * plugin and the protocol, each entered from a native frame and not inlined into the warm-up's loop.
 * Linking by address is restricted: deliberate, as the addresses are the stubs'.
 */
@SuppressWarnings("restricted")
final class WarmUpCalls {
    /** A door's operations with the upcall targets' signatures. */
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
     * NCCL's, so that the stubs' adapters have the same shapes as theirs. One warm-up at a time.
     */
    static final class Targets {
        private static volatile NcclDoor door;

        private Targets() {
        }

        static int init(long ctxOut) {
            return door.init(ctxOut, 0, 0, false);
        }

        static int finalize(long ctx) {
            return door.finalizeContext(ctx);
        }

        static int listen(long ctx, int dev, long handle, long listenCommOut) {
            return door.listen(ctx, dev, handle, listenCommOut);
        }

        static int connect(long ctx, int dev, long handle, long sendCommOut) {
            return door.connect(ctx, dev, handle, sendCommOut);
        }

        static int accept(long listenComm, long recvCommOut) {
            return door.accept(listenComm, recvCommOut);
        }

        static int regMr(long comm, long data, long size, int type, long mhandleOut) {
            return door.regMr(comm, data, size, type, mhandleOut);
        }

        static int deregMr(long comm, long mhandle) {
            return door.deregMr(comm, mhandle);
        }

        static int isend(long comm, long data, long size, int tag, long mhandle, long requestOut) {
            return door.isend(comm, data, size, tag, mhandle, requestOut);
        }

        static int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
            return door.irecv(comm, n, data, sizes, tags, mhandles, requestOut);
        }

        static int test(long request, long doneOut, long sizesOut) {
            return door.test(request, doneOut, sizesOut);
        }

        static int closeSend(long comm) {
            return door.close(comm, CommEntry.SEND);
        }

        static int closeRecv(long comm) {
            return door.close(comm, CommEntry.RECV);
        }

        static int closeListen(long comm) {
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
            return call(init, ctxOut);
        }

        @Override
        public int finalize(long ctx) {
            return call(finalizeContext, ctx);
        }

        @Override
        public int listen(long ctx, int dev, long handle, long listenCommOut) {
            try {
                return (int) listen.invokeExact(ctx, dev, handle, listenCommOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int connect(long ctx, int dev, long handle, long sendCommOut) {
            try {
                return (int) connect.invokeExact(ctx, dev, handle, sendCommOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int accept(long listenComm, long recvCommOut) {
            try {
                return (int) accept.invokeExact(listenComm, recvCommOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int regMr(long comm, long data, long size, int type, long mhandleOut) {
            try {
                return (int) regMr.invokeExact(comm, data, size, type, mhandleOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int deregMr(long comm, long mhandle) {
            try {
                return (int) deregMr.invokeExact(comm, mhandle);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int isend(long comm, long data, long size, int tag, long mhandle, long requestOut) {
            try {
                return (int) isend.invokeExact(comm, data, size, tag, mhandle, requestOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
            try {
                return (int) irecv.invokeExact(comm, n, data, sizes, tags, mhandles, requestOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int test(long request, long doneOut, long sizesOut) {
            try {
                return (int) test.invokeExact(request, doneOut, sizesOut);
            } catch (Throwable t) {
                throw failed(t);
            }
        }

        @Override
        public int closeSend(long comm) {
            return call(closeSend, comm);
        }

        @Override
        public int closeRecv(long comm) {
            return call(closeRecv, comm);
        }

        @Override
        public int closeListen(long comm) {
            return call(closeListen, comm);
        }

        private static int call(MethodHandle h, long argument) {
            try {
                return (int) h.invokeExact(argument);
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
