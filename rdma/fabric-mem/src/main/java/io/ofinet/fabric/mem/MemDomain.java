package io.ofinet.fabric.mem;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ResourceTracker;
import java.util.HashMap;
import java.util.Map;

final class MemDomain implements Domain {
    final MemNetwork network;
    private final MemFabric fabric;
    private final FabricInfo info;
    private final ResourceTracker children = new ResourceTracker();
    private final Map<Long, MemMemoryRegion> byKey = new HashMap<>();
    private final Map<Long, MemMemoryRegion> byDescriptor = new HashMap<>();
    private long nextProviderKey = 0x1000;
    private boolean closed;

    MemDomain(MemFabric fabric, MemNetwork network, FabricInfo info) {
        this.fabric = fabric;
        this.network = network;
        this.info = info;
    }

    @Override
    public FabricInfo info() {
        return info;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("domain is closed");
        }
    }

    @Override
    public CompletionQueue openCompletionQueue(int size) {
        synchronized (network) {
            requireOpen();
            MemCompletionQueue cq = new MemCompletionQueue(this, size);
            children.add(cq);
            return cq;
        }
    }

    @Override
    public AddressVector openAddressVector(int count) {
        synchronized (network) {
            requireOpen();
            MemAddressVector av = new MemAddressVector(this);
            children.add(av);
            return av;
        }
    }

    @Override
    public Endpoint openEndpoint(CompletionQueue cq, AddressVector av) {
        synchronized (network) {
            requireOpen();
            if (!(cq instanceof MemCompletionQueue memCq) || !(av instanceof MemAddressVector memAv)
                    || memCq.domain != this || memAv.domain != this) {
                throw new IllegalArgumentException("queue and address vector must come from this domain");
            }
            if (memCq.isClosed() || memAv.isClosed()) {
                throw new IllegalStateException("fi_endpoint: its " + (memCq.isClosed() ? "completion queue"
                        : "address vector") + " is closed");
            }
            MemEndpoint ep = new MemEndpoint(this, memCq, memAv);
            children.add(ep);
            return ep;
        }
    }

    @Override
    public MemoryRegion register(long address, long length, long access, long requestedKey, int iface)
            throws FabricException {
        synchronized (network) {
            requireOpen();
            if (address == 0 || length < 0) {
                throw new FabricException("fi_mr_regattr (provider mem)", FiErrno.FI_EINVAL,
                        "bad range " + address + "+" + length);
            }
            long key = info.providerKeys() ? nextProviderKey++ : requestedKey;
            if (key < 0 || (info.mrKeySizeBytes() < 8 && key >= 1L << (8 * info.mrKeySizeBytes()))) {
                throw new FabricException("fi_mr_regattr (provider mem)", FiErrno.FI_EINVAL,
                        "key " + key + " does not fit in " + info.mrKeySizeBytes() + " bytes");
            }
            if (byKey.containsKey(key)) {
                throw new FabricException("fi_mr_regattr(key " + key + ") (provider mem)", FiErrno.FI_ENOKEY,
                        "key " + key + " is already used in this domain");
            }
            MemMemoryRegion mr = new MemMemoryRegion(this, address, length, access, key,
                    network.newDescriptor(), info.requiresEndpointMr());
            byKey.put(key, mr);
            byDescriptor.put(mr.descriptor(), mr);
            children.add(mr);
            return mr;
        }
    }

    MemMemoryRegion byKey(long key) {
        return byKey.get(key);
    }

    MemMemoryRegion byDescriptor(long descriptor) {
        return byDescriptor.get(descriptor);
    }

    void closed(Object child) {
        children.remove(child);
        if (child instanceof MemMemoryRegion mr) {
            byKey.remove(mr.keyUnchecked());
            byDescriptor.remove(mr.descriptor());
        }
    }

    @Override
    public void close() throws FabricException {
        synchronized (network) {
            if (closed) {
                return;
            }
            children.requireEmpty("fi_close(domain)", "endpoints, queues, address vectors or registrations");
            closed = true;
            fabric.closed(this);
        }
    }
}
