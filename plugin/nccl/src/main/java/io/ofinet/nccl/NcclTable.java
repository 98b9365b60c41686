package io.ofinet.nccl;

import io.ofinet.plugin.ofi.OfiNetPlugin;

/**
 * The targets of the upcall stubs: one static method per entry the C library names (see
 * {@code src/main/c/ofinet_java.h}), each taking C's addresses as {@code long} and returning an
 * {@code ncclResult_t}. They forward to one {@link NcclDoor} over ofinet's plugin, made when the
 * bridge starts; every exception is caught in the door.
 */
final class NcclTable {
    static final NcclDoor DOOR = new NcclDoor(new OfiNetPlugin(), NcclBridge.log(), WarmUp::fromEnvironment);

    private NcclTable() {
    }

    static int init(long ctxOut, long commId, long config, int ncclLogger) {
        return DOOR.init(ctxOut, commId, config, ncclLogger != 0);
    }

    static int finalize(long ctx) {
        return DOOR.finalizeContext(ctx);
    }

    static int devices(long ndevOut) {
        return DOOR.devices(ndevOut);
    }

    static int getProperties(int dev, long propsOut) {
        return DOOR.getProperties(dev, propsOut);
    }

    static int listen(long ctx, int dev, long handle, long listenCommOut) {
        return DOOR.listen(ctx, dev, handle, listenCommOut);
    }

    static int connect(long ctx, int dev, long handle, long sendCommOut) {
        return DOOR.connect(ctx, dev, handle, sendCommOut);
    }

    static int accept(long listenComm, long recvCommOut) {
        return DOOR.accept(listenComm, recvCommOut);
    }

    static int regMr(long comm, long data, long size, int type, long mhandleOut) {
        return DOOR.regMr(comm, data, size, type, mhandleOut);
    }

    static int deregMr(long comm, long mhandle) {
        return DOOR.deregMr(comm, mhandle);
    }

    static int isend(long comm, long data, long size, int tag, long mhandle, long requestOut) {
        return DOOR.isend(comm, data, size, tag, mhandle, requestOut);
    }

    static int irecv(long comm, int n, long data, long sizes, long tags, long mhandles, long requestOut) {
        return DOOR.irecv(comm, n, data, sizes, tags, mhandles, requestOut);
    }

    static int iflush(long comm, int n, long data, long sizes, long mhandles, long requestOut) {
        return DOOR.iflush(comm, n, data, sizes, mhandles, requestOut);
    }

    static int test(long request, long doneOut, long sizesOut) {
        return DOOR.test(request, doneOut, sizesOut);
    }

    static int closeSend(long comm) {
        return DOOR.close(comm, CommEntry.SEND);
    }

    static int closeRecv(long comm) {
        return DOOR.close(comm, CommEntry.RECV);
    }

    static int closeListen(long comm) {
        return DOOR.close(comm, CommEntry.LISTEN);
    }

    /** The host process is exiting (an atexit handler of the library's). */
    static int atExit() {
        return DOOR.atExit();
    }
}
