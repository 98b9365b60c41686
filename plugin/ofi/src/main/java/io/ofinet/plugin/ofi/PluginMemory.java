package io.ofinet.plugin.ofi;

import io.ofinet.mr.Registrar;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.error.RdmaException;

/**
 * {@code regMr} and {@code deregMr} of {@link OfiNetPlugin}, after its checks of the handles: host
 * memory only, and no deregistration of memory that outstanding requests, or a post under way on
 * another thread, use ({@link OfiHandles.Comm#claim}).
 */
final class PluginMemory {
    private PluginMemory() {
    }

    static OfiHandles.Mr register(OfiHandles.Comm c, long address, long size, MemoryType type, Object owner)
            throws NetException {
        if (type != MemoryType.HOST) {
            throw new NetException(NetResult.INVALID_USAGE, "regMr: " + type + " memory is not supported: ofinet"
                    + " registers host memory only (ptrSupport HOST)");
        }
        if (address == 0 || size < 0) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "regMr: no buffer at 0x" + Long.toHexString(address)
                    + " of " + size + " bytes");
        }
        if (!Registrar.userRange(address, size)) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "regMr: [0x" + Long.toHexString(address) + ", +"
                    + size + ") is not a range of user-space addresses");
        }
        try {
            return new OfiHandles.Mr(owner, c.endpoint.registerUserBuffer(address, size), c.endpoint);
        } catch (RdmaException e) {
            throw Errors.toNetException("regMr", e);
        }
    }

    static void deregister(OfiHandles.Comm c, OfiHandles.Mr mr) throws NetException {
        if (mr.endpoint != c.endpoint) {
            throw new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle was registered for a"
                    + " communicator of another endpoint");
        }
        int uses = mr.markDeregistered();
        if (uses < 0) {
            throw new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle was deregistered already");
        }
        if (uses > 0) {
            throw new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle is used by " + uses
                    + " outstanding request" + (uses == 1 ? "" : "s") + "; nothing was deregistered (test them"
                    + " to completion or close their communicator first)");
        }
        try {
            mr.endpoint.deregisterUserBuffer(mr.inner);
        } catch (RdmaException e) {
            throw Errors.toNetException("deregMr", e);
        }
    }
}
