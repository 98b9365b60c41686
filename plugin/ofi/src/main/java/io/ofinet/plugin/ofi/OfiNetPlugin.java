package io.ofinet.plugin.ofi;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.ConfigLoader;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.ofi.OfiDiscovery;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.mr.MrHandle;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.Device;
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * ofinet's {@link NetPlugin}, found by {@link java.util.ServiceLoader} under the name {@value
 * #NAME}: the adapter from the NCCL-style API to the RDMA protocol. Its configuration is the layout
 * named by {@code OFINET_LAYOUT}, or one discovered from {@code fi_getinfo}. Devices open on first
 * use; protocol endpoints are per thread.
 */
public final class OfiNetPlugin implements NetPlugin {
    /** The plugin's name. */
    public static final String NAME = "ofinet";
    /** The largest message: a stripe's length travels in 32 bits of CQ data. */
    public static final long MAX_P2P_BYTES = 0xFFFFFFFFL;

    private final PluginDevices devices;
    private final PluginChecks checks = new PluginChecks(this);

    /** The plugin as ServiceLoader makes it: real libfabric, the layout of this process's configuration. */
    public OfiNetPlugin() {
        this(OfiProvider::new, () -> ConfigLoader.load(ConfigEnvironment.system(), Optional.of(new OfiDiscovery())));
    }

    /** A plugin over another provider and layout (the in-memory provider, in tests). */
    OfiNetPlugin(Supplier<FabricProvider> providers, PluginDevices.LayoutSource layoutSource) {
        this.devices = new PluginDevices(providers, layoutSource);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void init() throws NetException {
        devices.init();
    }

    @Override
    public int devices() throws NetException {
        return devices.count();
    }

    private Device device(int dev) throws NetException {
        return devices.device(dev);
    }

    @Override
    public DeviceProperties getProperties(int dev) throws NetException {
        return devices.properties(dev);
    }

    @Override
    public Map<String, Long> statistics(int dev) throws NetException {
        return devices.statistics(dev);
    }

    @Override
    public Map<String, Long> statistics(Handles.Comm comm) throws NetException {
        OfiHandles.Comm c = checks.ours(comm, OfiHandles.Comm.class, "statistics", "communicator");
        return (c instanceof OfiHandles.Send s ? s.inner.statistics() : ((OfiHandles.Recv) c).inner.statistics())
                .asMap();
    }

    private static RdmaEndpoint endpoint(Device device) throws NetException {
        try {
            return device.endpointForCurrentThread();
        } catch (RdmaException e) {
            throw Errors.toNetException("open endpoint", e);
        }
    }

    @Override
    public Handles.ListenComm listen(int dev) throws NetException {
        try {
            return new OfiHandles.Listen(this, endpoint(device(dev)).listen());
        } catch (RdmaException e) {
            throw Errors.toNetException("listen", e);
        }
    }

    @Override
    public Handles.SendComm connect(int dev, byte[] handle, ConnectConfig config) throws NetException {
        if (handle == null || handle.length > HANDLE_MAX_BYTES) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "connect: a handle of at most " + HANDLE_MAX_BYTES
                    + " bytes is required");
        }
        RdmaEndpoint endpoint = endpoint(device(dev));
        try {
            SendComm comm = endpoint.connect(handle);
            return comm == null ? null : new OfiHandles.Send(this, comm, endpoint);
        } catch (RdmaException e) {
            throw Errors.toNetException("connect", e);
        }
    }

    @Override
    public Handles.RecvComm accept(Handles.ListenComm listenComm) throws NetException {
        OfiHandles.Listen listen = checks.ours(listenComm, OfiHandles.Listen.class, "accept", "listen communicator");
        if (listen.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "accept: the listen communicator is closed");
        }
        ListenComm inner = listen.inner;
        try {
            RecvComm comm = inner.endpoint().accept(inner);
            return comm == null ? null : new OfiHandles.Recv(this, comm, inner.endpoint());
        } catch (RdmaException e) {
            throw Errors.toNetException("accept", e);
        }
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, long address, long size, MemoryType type) throws NetException {
        OfiHandles.Comm c = checks.openComm(comm, "regMr");
        if (type != MemoryType.HOST) {
            throw new NetException(NetResult.INVALID_USAGE, "regMr: " + type + " memory is not supported: ofinet"
                    + " registers host memory only (ptrSupport HOST)");
        }
        if (address == 0 || size < 0) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "regMr: no buffer at 0x" + Long.toHexString(address)
                    + " of " + size + " bytes");
        }
        try {
            return new OfiHandles.Mr(this, c.endpoint.registerUserBuffer(address, size), c.endpoint);
        } catch (RdmaException e) {
            throw Errors.toNetException("regMr", e);
        }
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, ByteBuffer buffer) throws NetException {
        return regMr(comm, PluginChecks.address(null, buffer, "regMr"), buffer.remaining(), MemoryType.HOST);
    }

    @Override
    public Handles.MrHandle regMrDmaBuf(Handles.Comm comm, long address, long size, MemoryType type, long offset,
            int fd) throws NetException {
        checks.openComm(comm, "regMrDmaBuf");
        throw new NetException(NetResult.INVALID_USAGE, "regMrDmaBuf: dma-buf memory is not supported: ofinet"
                + " registers host memory only (ptrSupport HOST)");
    }

    @Override
    public void deregMr(Handles.Comm comm, Handles.MrHandle mhandle) throws NetException {
        // A closed communicator will do: its requests ended with it, and its buffers must still
        // be released.
        checks.ours(comm, OfiHandles.Comm.class, "deregMr", "communicator");
        OfiHandles.Mr mr = checks.ours(mhandle, OfiHandles.Mr.class, "deregMr", "memory handle");
        if (mr.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle was deregistered already");
        }
        int uses = mr.uses.get();
        if (uses > 0) {
            throw new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle is used by " + uses
                    + " outstanding request" + (uses == 1 ? "" : "s") + "; nothing was deregistered (test them to"
                    + " completion or close their communicator first)");
        }
        mr.closed = true;
        try {
            mr.endpoint.deregisterUserBuffer(mr.inner);
        } catch (RdmaException e) {
            throw Errors.toNetException("deregMr", e);
        }
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, long address, long size, int tag, Handles.MrHandle mhandle)
            throws NetException {
        OfiHandles.Send send = checks.send(comm, "isend");
        if (size < 0 || size > MAX_P2P_BYTES) {
            throw new NetException(NetResult.INVALID_USAGE, "isend: " + size + " bytes; maxP2pBytes is "
                    + MAX_P2P_BYTES);
        }
        OfiHandles.Mr mr = checks.mr(mhandle, send, "isend");
        try {
            Request inner = send.inner.isend(address, size, tag, mr == null ? null : mr.inner);
            send.scratchMrs[0] = mr;
            return inner == null ? null : send.wrap(inner, 1, 0);
        } catch (RdmaException e) {
            throw Errors.toNetException("isend", e);
        }
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle)
            throws NetException {
        return isend(comm, PluginChecks.address(comm, buffer, "isend"), buffer.remaining(), tag, mhandle);
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, int n, long[] addresses, long[] sizes, int[] tags,
            Handles.MrHandle[] mhandles) throws NetException {
        OfiHandles.Recv recv = checks.recv(comm, n, "irecv");
        MrHandle[] mrs = checks.mrs(recv, n, mhandles, "irecv");
        try {
            Request inner = recv.inner.irecv(n, addresses, sizes, tags, mrs);
            return inner == null ? null : recv.wrap(inner, n, n);
        } catch (RdmaException e) {
            throw Errors.toNetException("irecv", e);
        }
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle)
            throws NetException {
        OfiHandles.Recv recv = checks.recv(comm, 1, "irecv");
        recv.addresses[0] = PluginChecks.address(recv, buffer, "irecv");
        recv.sizes[0] = buffer.remaining();
        recv.tags[0] = tag;
        recv.mhandles[0] = mhandle;
        return irecv(comm, 1, recv.addresses, recv.sizes, recv.tags, recv.mhandles);
    }

    @Override
    public Handles.Request iflush(Handles.RecvComm comm, int n, long[] addresses, long[] sizes,
            Handles.MrHandle[] mhandles) throws NetException {
        OfiHandles.Recv recv = checks.recv(comm, n, "iflush");
        MrHandle[] mrs = checks.mrs(recv, n, mhandles, "iflush");
        try {
            Request inner = recv.inner.iflush(n, addresses, sizes, mrs);
            return inner == null ? null : recv.wrap(inner, n, 0);
        } catch (RdmaException e) {
            throw Errors.toNetException("iflush", e);
        }
    }

    @Override
    public boolean test(Handles.Request request, long[] sizes) throws NetException {
        OfiHandles.PooledRequest r = checks.ours(request, OfiHandles.PooledRequest.class, "test", "request");
        if (r.comm.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "test: the request's communicator is closed");
        }
        if (!r.inUse) {
            throw new NetException(NetResult.INVALID_USAGE, "test: the request is no longer outstanding: test"
                    + " already reported it done or failed");
        }
        if (sizes != null && sizes.length < r.buffers) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "test: the receive has " + r.buffers
                    + " buffers, but sizes has room for " + sizes.length + "; the request is still outstanding");
        }
        try {
            boolean done = r.inner.test(sizes);
            if (done) {
                r.comm.release(r);
            }
            return done;
        } catch (RdmaException e) {
            r.comm.release(r);
            throw Errors.toNetException("test", e);
        }
    }

    @Override
    public void closeSend(Handles.SendComm comm) throws NetException {
        OfiHandles.Send send = checks.ours(comm, OfiHandles.Send.class, "closeSend", "send communicator");
        if (send.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "closeSend: the communicator is closed already");
        }
        send.markClosed();
        try {
            send.inner.close();
        } catch (RdmaException e) {
            throw Errors.toNetException("closeSend", e);
        }
    }

    @Override
    public void closeRecv(Handles.RecvComm comm) throws NetException {
        OfiHandles.Recv recv = checks.ours(comm, OfiHandles.Recv.class, "closeRecv", "receive communicator");
        if (recv.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "closeRecv: the communicator is closed already");
        }
        recv.markClosed();
        recv.inner.close();
    }

    @Override
    public void closeListen(Handles.ListenComm comm) throws NetException {
        OfiHandles.Listen listen = checks.ours(comm, OfiHandles.Listen.class, "closeListen", "listen communicator");
        if (listen.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "closeListen: the communicator is closed already");
        }
        listen.closed = true;
        listen.inner.close();
    }

    @Override
    public void close() throws NetException {
        devices.close();
    }
}
