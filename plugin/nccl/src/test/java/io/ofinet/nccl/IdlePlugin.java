package io.ofinet.nccl;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;
import java.nio.ByteBuffer;

/**
 * A plugin that moves nothing and answers at once, under {@link CrossingDoor}'s calls: what the door
 * costs over it is the door's own work (its lookups, its checks, NCCL's arguments read and written in C
 * memory), with no progress step to share caches with. A receive posted with {@link #PENDING_TAG}
 * never completes; every other request is done at its first test.
 */
final class IdlePlugin implements NetPlugin {
    static final int PENDING_TAG = 99;
    private static final Handles.Request PENDING = new Handles.Request() {
    };
    private static final Handles.Request DONE = new Handles.Request() {
    };
    /** Read as a real plugin reads its state: a constant would let the JIT drop a loop of calls. */
    private volatile int devices = 1;

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public void init() {
    }

    @Override
    public int devices() {
        return devices;
    }

    @Override
    public DeviceProperties getProperties(int dev) {
        throw new UnsupportedOperationException("getProperties: the idle plugin has no device to describe");
    }

    @Override
    public Handles.ListenComm listen(int dev) {
        return () -> new byte[8];
    }

    @Override
    public Handles.SendComm connect(int dev, byte[] handle, ConnectConfig config) {
        return new Handles.SendComm() {
        };
    }

    @Override
    public Handles.RecvComm accept(Handles.ListenComm listenComm) {
        return new Handles.RecvComm() {
        };
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, long address, long size, MemoryType type) {
        return new Handles.MrHandle() {
        };
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, ByteBuffer buffer) {
        return regMr(comm, 0, buffer.capacity(), MemoryType.HOST);
    }

    @Override
    public Handles.MrHandle regMrDmaBuf(Handles.Comm comm, long address, long size, MemoryType type, long offset,
            int fd) {
        throw new UnsupportedOperationException("regMrDmaBuf: the idle plugin takes host memory only");
    }

    @Override
    public void deregMr(Handles.Comm comm, Handles.MrHandle mhandle) {
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, long address, long size, int tag, Handles.MrHandle mhandle) {
        return DONE;
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle) {
        return DONE;
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, int n, long[] addresses, long[] sizes, int[] tags,
            Handles.MrHandle[] mhandles) {
        return tags[0] == PENDING_TAG ? PENDING : DONE;
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle) {
        return tag == PENDING_TAG ? PENDING : DONE;
    }

    @Override
    public Handles.Request iflush(Handles.RecvComm comm, int n, long[] addresses, long[] sizes,
            Handles.MrHandle[] mhandles) {
        return DONE;
    }

    @Override
    public boolean test(Handles.Request request, long[] sizes) {
        if (request == PENDING) {
            return false;
        }
        if (sizes != null) {
            sizes[0] = 8;
        }
        return true;
    }

    @Override
    public void closeSend(Handles.SendComm comm) {
    }

    @Override
    public void closeRecv(Handles.RecvComm comm) {
    }

    @Override
    public void closeListen(Handles.ListenComm comm) {
    }

    @Override
    public void close() {
    }
}
