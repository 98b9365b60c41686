package io.ofinet.mr;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.MemoryRegion;

/** One registration on one rail: the region and its key (bound to the rail's endpoint in endpoint scope). */
final class Registration {
    private final DomainContext domain;
    private final MemoryRegion region;
    private final long key;
    private final long descriptor;
    private final boolean keyFromPool;
    private boolean closed;

    private Registration(DomainContext domain, MemoryRegion region, long key, boolean keyFromPool) {
        this.domain = domain;
        this.region = region;
        this.key = key;
        this.descriptor = region.descriptor();
        this.keyFromPool = keyFromPool;
    }

    /**
     * Registers {@code [address, address + length)} in the domain with a key from its pool and, in
     * endpoint scope, binds it to {@code endpoint} and enables it, in the order libfabric requires.
     * A failure undoes what was done and names the call.
     *
     * @param endpoint the endpoint to bind to in endpoint scope; ignored in domain scope
     */
    static Registration make(DomainContext domain, long address, long length, long access, Endpoint endpoint)
            throws MrException, FabricException {
        KeyPool pool = domain.keys();
        long requested = pool == null ? 0 : pool.allocate();
        MemoryRegion region = null;
        try {
            region = domain.domain().register(address, length, access, requested, Fi.HMEM_SYSTEM);
            if (domain.scope() == Scope.ENDPOINT) {
                region.bind(endpoint, 0);
                region.enable();
            }
            long key = pool == null ? region.key() : requested;
            return new Registration(domain, region, key, pool != null);
        } catch (FabricException | RuntimeException e) {
            if (region != null) {
                try {
                    region.close();
                } catch (FabricException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (pool != null) {
                pool.free(requested);
            }
            throw e;
        }
    }

    long key() {
        return key;
    }

    long descriptor() {
        return descriptor;
    }

    long regionAddress() {
        return region.address();
    }

    DomainContext domain() {
        return domain;
    }

    /** Closes the region and returns its key. Closing twice is harmless. */
    void close() throws FabricException {
        if (closed) {
            return;
        }
        region.close();
        closed = true;
        if (keyFromPool) {
            domain.keys().free(key);
        }
    }
}
