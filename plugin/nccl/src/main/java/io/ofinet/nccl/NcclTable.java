package io.ofinet.nccl;

import io.ofinet.plugin.ofi.OfiNetPlugin;

/**
 * The targets of the upcall stubs: one static method per entry the C library names (see
 * {@code src/main/c/ofinet_java.h}), each returning an {@code ncclResult_t}. All have one type, seven
 * {@code long}s ({@link NcclBridge#ENTRY}): an entry's arguments first, C's ints widened, the rest
 * unused (0). They forward to one {@link NcclDoor} over ofinet's plugin, made when the bridge starts;
 * every exception is caught in the door.
 */
final class NcclTable {
    static final NcclDoor DOOR = new NcclDoor(new OfiNetPlugin(), NcclBridge.log(), WarmUp::fromEnvironment);

    private NcclTable() {
    }

    static int init(long ctxOut, long commId, long config, long ncclLogger, long u1, long u2, long u3) {
        return DOOR.init(ctxOut, commId, config, ncclLogger != 0);
    }

    static int finalize(long ctx, long u1, long u2, long u3, long u4, long u5, long u6) {
        return DOOR.finalizeContext(ctx);
    }

    static int devices(long ndevOut, long u1, long u2, long u3, long u4, long u5, long u6) {
        return DOOR.devices(ndevOut);
    }

    static int getProperties(long dev, long propsOut, long u1, long u2, long u3, long u4, long u5) {
        return DOOR.getProperties((int) dev, propsOut);
    }

    static int listen(long ctx, long dev, long handle, long listenCommOut, long u1, long u2, long u3) {
        return DOOR.listen(ctx, (int) dev, handle, listenCommOut);
    }

    static int connect(long ctx, long dev, long handle, long sendCommOut, long u1, long u2, long u3) {
        return DOOR.connect(ctx, (int) dev, handle, sendCommOut);
    }

    static int accept(long listenComm, long recvCommOut, long u1, long u2, long u3, long u4, long u5) {
        return DOOR.accept(listenComm, recvCommOut);
    }

    static int regMr(long comm, long data, long size, long type, long mhandleOut, long u1, long u2) {
        return DOOR.regMr(comm, data, size, (int) type, mhandleOut);
    }

    static int deregMr(long comm, long mhandle, long u1, long u2, long u3, long u4, long u5) {
        return DOOR.deregMr(comm, mhandle);
    }

    static int isend(long comm, long data, long size, long tag, long mhandle, long requestOut, long u1) {
        return DOOR.isend(comm, data, size, (int) tag, mhandle, requestOut);
    }

    static int irecv(long comm, long n, long data, long sizes, long tags, long mhandles, long requestOut) {
        return DOOR.irecv(comm, (int) n, data, sizes, tags, mhandles, requestOut);
    }

    static int iflush(long comm, long n, long data, long sizes, long mhandles, long requestOut, long u1) {
        return DOOR.iflush(comm, (int) n, data, sizes, mhandles, requestOut);
    }

    static int test(long request, long doneOut, long sizesOut, long u1, long u2, long u3, long u4) {
        return DOOR.test(request, doneOut, sizesOut);
    }

    static int closeSend(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
        return DOOR.close(comm, CommEntry.SEND);
    }

    static int closeRecv(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
        return DOOR.close(comm, CommEntry.RECV);
    }

    static int closeListen(long comm, long u1, long u2, long u3, long u4, long u5, long u6) {
        return DOOR.close(comm, CommEntry.LISTEN);
    }

    /** The host process is exiting (an atexit handler of the library's). */
    static int atExit(long u1, long u2, long u3, long u4, long u5, long u6, long u7) {
        return DOOR.atExit();
    }
}
