package io.ofinet.fabric.mem;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.ResourceTracker;

final class MemFabric implements Fabric {
    private final MemProvider provider;
    private final FabricInfo info;
    private final ResourceTracker domains = new ResourceTracker();
    private boolean closed;

    MemFabric(MemProvider provider, FabricInfo info) {
        this.provider = provider;
        this.info = info;
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    @Override
    public Domain openDomain() {
        synchronized (provider.network) {
            if (closed) {
                throw new IllegalStateException("fabric is closed");
            }
            MemDomain domain = new MemDomain(this, provider.network, info);
            domains.add(domain);
            return domain;
        }
    }

    void closed(MemDomain domain) {
        domains.remove(domain);
    }

    @Override
    public void close() throws FabricException {
        synchronized (provider.network) {
            if (!closed) {
                domains.requireEmpty("fi_close(fabric)", "domains");
                closed = true;
            }
        }
    }
}
