package io.ofinet.fabric.ofi;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.ResourceTracker;
import java.lang.System.Logger.Level;
import java.lang.ref.Reference;

/** An open libfabric domain. */
final class OfiDomain implements Domain {
    private static final System.Logger LOG = System.getLogger(OfiDomain.class.getName());

    private final OfiFabric fabric;
    private final long domain;
    private final ResourceTracker children = new ResourceTracker();
    private boolean closed;

    OfiDomain(OfiFabric fabric, long domain) {
        this.fabric = fabric;
        this.domain = domain;
    }

    @Override
    public FabricInfo info() {
        return fabric.info();
    }

    String provider() {
        return fabric.info().provider();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("domain is closed");
        }
    }

    private long domainOps() {
        return Ops.getLong(domain + NativeOffsets.DOMAIN_OPS);
    }

    @Override
    public synchronized CompletionQueue openCompletionQueue(int size) throws FabricException {
        requireOpen();
        Memory attr = Ops.scratch(NativeOffsets.CQ_ATTR_SIZE);
        attr.setLong(NativeOffsets.CQ_ATTR_SIZE_FIELD, size);
        attr.setInt(NativeOffsets.CQ_ATTR_FORMAT, NativeOffsets.CQ_FORMAT_DATA);
        attr.setInt(NativeOffsets.CQ_ATTR_WAIT_OBJ, 0); // FI_WAIT_NONE: ofinet polls
        Memory out = Ops.scratch(8);
        try {
            Ops.check("fi_cq_open", provider(), Ops.fn(domainOps(), NativeOffsets.OPS_DOMAIN_CQ_OPEN, "fi_cq_open",
                    provider()).invokeInt(new Object[] {domain, Pointer.nativeValue(attr), Pointer.nativeValue(out), 0L}));
        } finally {
            Reference.reachabilityFence(attr);
        }
        NativeUsage.opened();
        OfiCompletionQueue cq = new OfiCompletionQueue(this, out.getLong(0));
        children.add(cq);
        return cq;
    }

    @Override
    public synchronized AddressVector openAddressVector(int count) throws FabricException {
        requireOpen();
        Memory attr = Ops.scratch(NativeOffsets.AV_ATTR_SIZE);
        attr.setInt(NativeOffsets.AV_ATTR_TYPE, 0); // FI_AV_UNSPEC: the provider's preferred kind
        attr.setLong(NativeOffsets.AV_ATTR_COUNT, count);
        Memory out = Ops.scratch(8);
        try {
            Ops.check("fi_av_open", provider(), Ops.fn(domainOps(), NativeOffsets.OPS_DOMAIN_AV_OPEN, "fi_av_open",
                    provider()).invokeInt(new Object[] {domain, Pointer.nativeValue(attr), Pointer.nativeValue(out), 0L}));
        } finally {
            Reference.reachabilityFence(attr);
        }
        NativeUsage.opened();
        OfiAddressVector av = new OfiAddressVector(this, out.getLong(0));
        children.add(av);
        return av;
    }

    @Override
    public Endpoint openEndpoint(CompletionQueue cq, AddressVector av) throws FabricException {
        return openEndpoint(cq, av, true);
    }

    /**
     * Opens an endpoint; {@code keepJvmSignalHandlers} false leaves whatever signal handlers the
     * provider installs (only the test that shows why they must not stay asks for that).
     */
    synchronized Endpoint openEndpoint(CompletionQueue cq, AddressVector av, boolean keepJvmSignalHandlers)
            throws FabricException {
        requireOpen();
        if (!(cq instanceof OfiCompletionQueue ofiCq) || !(av instanceof OfiAddressVector ofiAv)) {
            throw new IllegalArgumentException("completion queue and address vector must come from libfabric");
        }
        if (ofiCq.domain() != this || ofiAv.domain() != this) {
            throw new IllegalArgumentException("the completion queue and address vector must be this domain's");
        }
        if (ofiCq.isClosed() || ofiAv.isClosed()) {
            throw new IllegalStateException("fi_endpoint: its " + (ofiCq.isClosed() ? "completion queue" : "address"
                    + " vector") + " is closed");
        }
        Memory out = Ops.scratch(8);
        // shm installs signal handlers at its first endpoint that would unlink its regions at the
        // JVM's first implicit null check: see JvmSignalHandlers.
        JvmSignalHandlers.NativeCall<Void> open = () -> {
            Ops.check("fi_endpoint", provider(), Ops.fn(domainOps(), NativeOffsets.OPS_DOMAIN_ENDPOINT, "fi_endpoint",
                    provider()).invokeInt(new Object[] {domain, fabric.infoCopy(), Pointer.nativeValue(out), 0L}));
            return null;
        };
        if (keepJvmSignalHandlers) {
            JvmSignalHandlers.preserved(provider(), open);
        } else {
            open.run();
        }
        long ep = out.getLong(0);
        NativeUsage.opened();
        try {
            Ops.bind(ep, ofiAv.fid(), 0, "fi_ep_bind(av)", provider());
            Ops.bind(ep, ofiCq.fid(), Fi.TRANSMIT | Fi.RECV, "fi_ep_bind(cq)", provider());
        } catch (FabricException e) {
            if (new ProviderPolicy(provider()).crashesClosingHalfBoundEndpoints()) {
                // fi_close on an rxm endpoint not bound to both an AV and a CQ crashes the process.
                LOG.log(Level.WARNING, "leaking a half-bound {0} endpoint rather than crash closing it",
                        provider());
            } else {
                try {
                    Ops.close(ep, "endpoint", provider());
                } catch (FabricException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        OfiEndpoint endpoint = new OfiEndpoint(this, ep, ofiCq, ofiAv);
        children.add(endpoint);
        return endpoint;
    }

    @Override
    public synchronized MemoryRegion register(long address, long length, long access, long requestedKey,
            int iface) throws FabricException {
        requireOpen();
        Memory iov = Ops.scratch(NativeOffsets.IOVEC_SIZE);
        iov.setLong(NativeOffsets.IOVEC_BASE, address);
        iov.setLong(NativeOffsets.IOVEC_LEN, length);
        Memory attr = Ops.scratch(NativeOffsets.MR_ATTR_SIZE);
        attr.setLong(NativeOffsets.MR_ATTR_IOV, Pointer.nativeValue(iov));
        attr.setLong(NativeOffsets.MR_ATTR_IOV_COUNT, 1);
        attr.setLong(NativeOffsets.MR_ATTR_ACCESS, access);
        attr.setLong(NativeOffsets.MR_ATTR_OFFSET, 0);
        attr.setLong(NativeOffsets.MR_ATTR_REQUESTED_KEY, requestedKey);
        attr.setInt(NativeOffsets.MR_ATTR_IFACE, iface);
        Memory out = Ops.scratch(8);
        long mrOps = Ops.getLong(domain + NativeOffsets.DOMAIN_MR);
        String call = "fi_mr_regattr(key " + requestedKey + ", " + length + " bytes)";
        try {
            Ops.check(call, provider(), Ops.fn(mrOps, NativeOffsets.OPS_MR_REGATTR, "fi_mr_regattr", provider())
                    .invokeInt(new Object[] {domain, Pointer.nativeValue(attr), 0L, Pointer.nativeValue(out)}));
        } finally {
            // libfabric reads both during the call; without these a collection may free them first.
            Reference.reachabilityFence(iov);
            Reference.reachabilityFence(attr);
        }
        NativeUsage.opened();
        OfiMemoryRegion mr = new OfiMemoryRegion(this, out.getLong(0), address, length);
        children.add(mr);
        return mr;
    }

    void closed(Object child) {
        children.remove(child);
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        children.requireEmpty("fi_close(domain)", "endpoints, queues, address vectors or registrations");
        Ops.close(domain, "domain", provider());
        closed = true;
        fabric.closed(this);
    }
}
