package io.ofinet.fabric.mem;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.MemoryRegion;

/** A registration; under FI_MR_ENDPOINT unusable until bound and enabled. */
final class MemMemoryRegion implements MemoryRegion {
    private final MemDomain domain;
    private final long address;
    private final long length;
    final long access;
    private final long key;
    private final long descriptor;
    private final boolean endpointScope;
    MemEndpoint boundTo;
    boolean enabled;
    private boolean closed;

    MemMemoryRegion(MemDomain domain, long address, long length, long access, long key, long descriptor,
            boolean endpointScope) {
        this.domain = domain;
        this.address = address;
        this.length = length;
        this.access = access;
        this.key = key;
        this.descriptor = descriptor;
        this.endpointScope = endpointScope;
        this.enabled = !endpointScope;
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
    public long key() throws FabricException {
        synchronized (domain.network) {
            if (!enabled) {
                throw new FabricException("fi_mr_key (provider mem)", FiErrno.FI_EOPBADSTATE,
                        "the registration is not enabled (FI_MR_ENDPOINT: bind and enable it first)");
            }
            return key;
        }
    }

    long keyUnchecked() {
        return key;
    }

    @Override
    public long descriptor() {
        return descriptor;
    }

    /** Whether the range lies inside the registration. */
    boolean covers(long start, long len) {
        return start >= address && len >= 0 && start - address <= length - len;
    }

    /** Whether it may be used on {@code ep}: enabled, and bound to it under FI_MR_ENDPOINT. */
    boolean usableOn(MemEndpoint ep) {
        return !closed && enabled && (!endpointScope || boundTo == ep);
    }

    @Override
    public void bind(Endpoint endpoint, long flags) throws FabricException {
        synchronized (domain.network) {
            if (!endpointScope) {
                throw new FabricException("fi_mr_bind (provider mem)", FiErrno.FI_ENOSYS,
                        "registrations are domain-scoped: the provider's mr_mode has no FI_MR_ENDPOINT");
            }
            if (!(endpoint instanceof MemEndpoint ep) || ep.domain != domain) {
                throw new FabricException("fi_mr_bind (provider mem)", FiErrno.FI_EINVAL,
                        "the endpoint is not of this registration's domain");
            }
            if (closed || enabled || boundTo != null) {
                throw new FabricException("fi_mr_bind (provider mem)", FiErrno.FI_EOPBADSTATE,
                        closed ? "the registration is closed" : enabled ? "the registration is already enabled"
                                : "the registration is already bound");
            }
            boundTo = ep;
            ep.boundRegions.add(this);
        }
    }

    @Override
    public void enable() throws FabricException {
        synchronized (domain.network) {
            if (!endpointScope && !closed) {
                return;
            }
            if (closed || boundTo == null || enabled) {
                throw new FabricException("fi_mr_enable (provider mem)", FiErrno.FI_EOPBADSTATE,
                        closed ? "the registration is closed" : enabled ? "the registration is already enabled"
                                : "FI_MR_ENDPOINT: bind the registration to an endpoint first");
            }
            enabled = true;
        }
    }

    @Override
    public void close() {
        synchronized (domain.network) {
            if (closed) {
                return;
            }
            closed = true;
            if (boundTo != null) {
                boundTo.boundRegions.remove(this);
            }
            domain.closed(this);
        }
    }
}
