package io.ofinet.fabric.ofi;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.MemoryRegion;

/** A libfabric registration. */
final class OfiMemoryRegion implements MemoryRegion {
    private final OfiDomain domain;
    private final long mr;
    private final long address;
    private final long length;
    private OfiEndpoint boundTo;
    private boolean enabled;
    private boolean closed;

    OfiMemoryRegion(OfiDomain domain, long mr, long address, long length) {
        this.domain = domain;
        this.mr = mr;
        this.address = address;
        this.length = length;
        NativeUsage.registered();
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public synchronized long key() {
        requireOpen("fi_mr_key");
        return Ops.getLong(mr + NativeOffsets.MR_KEY);
    }

    @Override
    public synchronized long descriptor() {
        requireOpen("fi_mr_desc");
        return Ops.getLong(mr + NativeOffsets.MR_MEM_DESC);
    }

    private void requireOpen(String call) {
        if (closed) {
            throw new IllegalStateException(call + ": the registration is closed");
        }
    }

    @Override
    public synchronized void bind(Endpoint endpoint, long flags) throws FabricException {
        if (!(endpoint instanceof OfiEndpoint ep)) {
            throw new IllegalArgumentException("endpoint must come from libfabric");
        }
        if (closed || enabled || boundTo != null) {
            throw new FabricException("fi_mr_bind (provider " + domain.provider() + ")", FiErrno.FI_EOPBADSTATE,
                    closed ? "the registration is closed" : enabled ? "the registration is already enabled"
                            : "the registration is already bound");
        }
        Ops.bind(mr, ep.fid(), flags, "fi_mr_bind", domain.provider());
        boundTo = ep;
        ep.boundRegions().add(this);
    }

    @Override
    public synchronized void enable() throws FabricException {
        if (closed) {
            throw new FabricException("fi_mr_enable (provider " + domain.provider() + ")", FiErrno.FI_EOPBADSTATE,
                    "the registration is closed");
        }
        Ops.enable(mr, "fi_mr_enable", domain.provider());
        enabled = true;
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        Ops.close(mr, "mr", domain.provider());
        closed = true;
        NativeUsage.deregistered();
        if (boundTo != null) {
            boundTo.boundRegions().remove(this);
        }
        domain.closed(this);
    }
}
