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
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.nio.ByteBuffer;
import java.util.List;
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
    private final PluginConnections connections;
    /**
     * What the handles made since the last {@link #close} belong to: a new one at every close, so
     * that a handle made before it is refused as closed with the plugin. A plain field, read by
     * every call: a close on one thread while another still calls the plugin is outside its
     * contract, and that call meets the closed protocol instead.
     */
    private Opening opening = new Opening(this);

    /** A span of the plugin's life between two closes; see {@link #opening}. */
    record Opening(OfiNetPlugin plugin) {
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }

    /** The plugin as ServiceLoader makes it: real libfabric, the layout of this process's configuration. */
    public OfiNetPlugin() {
        this(OfiProvider::new, () -> ConfigLoader.load(ConfigEnvironment.system(), Optional.of(new OfiDiscovery())));
    }

    /**
     * The plugin over real libfabric and the layout {@code json} (parameters this process's
     * configuration sets apply), for a use of its own beside the plugin NCCL uses.
     */
    public static OfiNetPlugin overLayout(String json, String origin) {
        return new OfiNetPlugin(OfiProvider::new, () -> ConfigLoader.parse(json, origin, ConfigEnvironment.system()));
    }

    /** A plugin over another provider and layout (the in-memory provider, in tests). */
    OfiNetPlugin(Supplier<FabricProvider> providers, PluginDevices.LayoutSource layoutSource) {
        this.devices = new PluginDevices(providers, layoutSource);
        this.connections = new PluginConnections(this, devices, checks);
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

    /** The libfabric providers of device {@code dev}'s data rails, as its layout names them; nothing is opened. */
    public List<String> dataRailProviders(int dev) throws NetException {
        return devices.dataRailProviders(dev);
    }

    @Override
    public DeviceProperties getProperties(int dev) throws NetException {
        return devices.properties(dev);
    }

    @Override
    public Map<String, Long> statistics(int dev) throws NetException {
        Map<String, Long> figures = devices.statistics(dev);
        figures.put("connectsUnderWay", (long) connections.connectsUnderWay(dev));
        return figures;
    }

    @Override
    public Map<String, Long> statistics(Handles.Comm comm) throws NetException {
        OfiHandles.Comm c = checks.ours(comm, OfiHandles.Comm.class, "statistics", "communicator");
        return (c instanceof OfiHandles.Send s ? s.inner.statistics() : ((OfiHandles.Recv) c).inner.statistics())
                .asMap();
    }

    @Override
    public Handles.ListenComm listen(int dev) throws NetException {
        return connections.listen(devices.device(dev));
    }

    @Override
    public Handles.SendComm connect(int dev, byte[] handle, ConnectConfig config) throws NetException {
        return connections.connect(dev, handle);
    }

    @Override
    public Handles.RecvComm accept(Handles.ListenComm listenComm) throws NetException {
        return connections.accept(listenComm);
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, long address, long size, MemoryType type) throws NetException {
        return PluginMemory.register(checks.openComm(comm, "regMr"), address, size, type, opening);
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
        PluginMemory.deregister(checks.ours(comm, OfiHandles.Comm.class, "deregMr", "communicator"),
                checks.ours(mhandle, OfiHandles.Mr.class, "deregMr", "memory handle"));
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
        send.scratchMrs[0] = mr;
        int distinct = send.claim(1, "isend");
        Request inner;
        try {
            inner = send.inner.isend(address, size, tag, mr == null ? null : mr.inner);
        } catch (RdmaException e) {
            send.unclaim(distinct); // the post failed: nothing uses the memory
            throw Errors.toNetException("isend", e);
        } catch (RuntimeException | Error e) {
            send.unclaim(distinct);
            throw e;
        }
        return send.wrapOrUnclaim(inner, distinct, 0);
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
        int distinct = recv.claim(n, "irecv");
        Request inner;
        try {
            inner = recv.inner.irecv(n, addresses, sizes, tags, mrs);
        } catch (RdmaException e) {
            recv.unclaim(distinct); // the post failed: nothing uses the memory
            throw Errors.toNetException("irecv", e);
        } catch (RuntimeException | Error e) {
            recv.unclaim(distinct);
            throw e;
        }
        return recv.wrapOrUnclaim(inner, distinct, n);
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
        int distinct = recv.claim(n, "iflush");
        Request inner;
        try {
            inner = recv.inner.iflush(n, addresses, sizes, mrs);
        } catch (RdmaException e) {
            recv.unclaim(distinct); // the post failed: nothing uses the memory
            throw Errors.toNetException("iflush", e);
        } catch (RuntimeException | Error e) {
            recv.unclaim(distinct);
            throw e;
        }
        return recv.wrapOrUnclaim(inner, distinct, 0);
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
            if (!r.inner.inUse()) {
                r.comm.release(r); // its own failure: it has ended
            }
            // Else the endpoint's progress failed under it: it is still outstanding, and so is its
            // memory, which its operations in flight may still use, until it ends or its
            // communicator closes.
            throw Errors.toNetException("test", e);
        }
    }

    @Override
    public void closeSend(Handles.SendComm comm) throws NetException {
        connections.closeSend(comm);
    }

    @Override
    public void closeRecv(Handles.RecvComm comm) throws NetException {
        connections.closeRecv(comm);
    }

    @Override
    public void closeListen(Handles.ListenComm comm) throws NetException {
        connections.closeListen(comm);
    }

    /** What handles made now belong to. */
    Opening opening() {
        return opening;
    }

    /** Closes every device; handles made before are refused afterwards, as closed with the plugin. */
    @Override
    public void close() throws NetException {
        opening = new Opening(this);
        connections.forgetPendingConnects();
        devices.close();
    }
}
