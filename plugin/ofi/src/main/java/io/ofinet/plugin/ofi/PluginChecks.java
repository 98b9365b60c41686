package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.mr.MrHandle;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.wire.Limits;
import java.nio.ByteBuffer;

/**
 * What {@link OfiNetPlugin} checks of the handles and buffers a caller passes before anything is
 * posted: that each handle is one this plugin made, of the kind the operation takes, still open,
 * and for the communicator's endpoint. Each failure is a {@link NetException} naming the operation
 * and what was wrong, and leaves everything as it was.
 */
final class PluginChecks {
    private final OfiNetPlugin plugin;

    /** @param plugin the plugin whose handles pass, those made since its last close */
    PluginChecks(OfiNetPlugin plugin) {
        this.plugin = plugin;
    }

    /** {@code handle} as {@code type}, when it is one of the plugin's made since its last close. */
    <T> T ours(Object handle, Class<T> type, String operation, String what) throws NetException {
        if (!type.isInstance(handle) || ((OfiHandles.Owned) handle).owner() != plugin.opening()) {
            throw notOurs(handle, operation, what);
        }
        return type.cast(handle);
    }

    /** Why {@code handle} is refused; out of {@link #ours}, which every call makes, to keep that one small. */
    private NetException notOurs(Object handle, String operation, String what) {
        return new NetException(NetResult.INVALID_USAGE, operation + ": " + (handle == null ? "no " + what
                : handle instanceof OfiHandles.Owned o && o.owner() instanceof OfiNetPlugin.Opening earlier
                        && earlier.plugin() == plugin ? "a " + what + " made before the plugin was closed, and"
                        + " closed with it" : "a " + what + " that this plugin did not make"));
    }

    /** A send or receive communicator of the owner's, not closed. */
    OfiHandles.Comm openComm(Handles.Comm comm, String operation) throws NetException {
        return open(ours(comm, OfiHandles.Comm.class, operation, "communicator"), operation);
    }

    /** {@code c}, when it is not closed. */
    private static <C extends OfiHandles.Comm> C open(C c, String operation) throws NetException {
        if (c.closed) {
            throw new NetException(NetResult.INVALID_USAGE, operation + ": the communicator is closed");
        }
        return c;
    }

    /** An open send communicator of the owner's. */
    OfiHandles.Send send(Handles.SendComm comm, String operation) throws NetException {
        return open(ours(comm, OfiHandles.Send.class, operation, "send communicator"), operation);
    }

    /** An open receive communicator of the owner's, for {@code n} buffers. */
    OfiHandles.Recv recv(Handles.RecvComm comm, int n, String operation) throws NetException {
        OfiHandles.Recv recv = open(ours(comm, OfiHandles.Recv.class, operation, "receive communicator"), operation);
        if (n < 1 || n > Limits.MAX_RECVS) {
            throw new NetException(NetResult.INVALID_USAGE, operation + ": " + n + " buffers; maxRecvs is "
                    + Limits.MAX_RECVS);
        }
        return recv;
    }

    /** The plugin's memory handle, checked for {@code comm}; null for null. */
    OfiHandles.Mr mr(Handles.MrHandle mhandle, OfiHandles.Comm comm, String operation) throws NetException {
        if (mhandle == null) {
            return null;
        }
        OfiHandles.Mr mr = ours(mhandle, OfiHandles.Mr.class, operation, "memory handle");
        if (mr.closed()) {
            throw new NetException(NetResult.INVALID_USAGE, operation + ": the memory handle was deregistered");
        }
        if (mr.endpoint != comm.endpoint) {
            throw new NetException(NetResult.INVALID_USAGE, operation + ": the memory handle was registered for a"
                    + " communicator of another endpoint");
        }
        return mr;
    }

    /** The protocol's handles of buffers 0..n-1, in the communicator's scratch array. */
    MrHandle[] mrs(OfiHandles.Recv recv, int n, Handles.MrHandle[] mhandles, String operation) throws NetException {
        if (mhandles == null) {
            throw new NetException(NetResult.INVALID_ARGUMENT, operation + ": no array of memory handles");
        }
        if (mhandles.length < n) {
            throw new NetException(NetResult.INVALID_ARGUMENT, operation + ": " + n + " buffers, but "
                    + mhandles.length + " memory handles");
        }
        for (int i = 0; i < n; i++) {
            OfiHandles.Mr mr = mr(mhandles[i], recv, operation);
            recv.scratchMrs[i] = mr;
            recv.scratch[i] = mr == null ? null : mr.inner;
        }
        return recv.scratch;
    }

    /**
     * The address of {@code buffer}'s position, remembered by {@code comm} (when it is one of the
     * plugin's; may be null) for the next post.
     */
    static long address(Handles.Comm comm, ByteBuffer buffer, String operation) throws NetException {
        if (buffer == null || !buffer.isDirect()) {
            throw new NetException(NetResult.INVALID_ARGUMENT, operation + ": a direct ByteBuffer is required; heap"
                    + " memory cannot be registered");
        }
        long base = comm instanceof OfiHandles.Comm c ? c.addressOf(buffer) : NativeMemory.addressOf(buffer);
        return base + buffer.position();
    }
}
