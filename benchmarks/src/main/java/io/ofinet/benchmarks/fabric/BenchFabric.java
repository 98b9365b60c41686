package io.ofinet.benchmarks.fabric;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;

/**
 * Two endpoints of one domain of a real provider ({@code shm} unless the environment variable
 * {@code OFINET_BENCH_PROVIDER} names another; JMH's forks inherit it), each with its queue, address vector and a
 * registered 64-byte buffer, connected to each other.
 */
final class BenchFabric implements AutoCloseable {
    final Fabric fabric;
    final Domain domain;
    final CompletionQueue cqA;
    final CompletionQueue cqB;
    final AddressVector avA;
    final AddressVector avB;
    final Endpoint a;
    final Endpoint b;
    final long bufA;
    final long bufB;
    final MemoryRegion mrA;
    final MemoryRegion mrB;
    final long aToB;
    private final CompletionBatch batch = new CompletionBatch(1);

    BenchFabric() throws FabricException {
        String provider = System.getenv().getOrDefault("OFINET_BENCH_PROVIDER", "shm");
        OfiProvider ofi = new OfiProvider();
        InfoHints hints = InfoHints.protocol().withProvider(provider);
        if (provider.startsWith("tcp") || provider.equals("sockets")) {
            hints = hints.withDomain("lo").withNode("127.0.0.1");
        }
        try (InfoList offers = ofi.getinfo(hints)) {
            if (offers.infos().isEmpty()) {
                throw new IllegalStateException("no offer from " + provider);
            }
            fabric = ofi.openFabric(offers.infos().get(0));
        }
        domain = fabric.openDomain();
        cqA = domain.openCompletionQueue(1024);
        cqB = domain.openCompletionQueue(1024);
        avA = domain.openAddressVector(4);
        avB = domain.openAddressVector(4);
        a = domain.openEndpoint(cqA, avA);
        b = domain.openEndpoint(cqB, avB);
        a.enable();
        b.enable();
        aToB = avA.insert(b.name());
        avB.insert(a.name());
        bufA = NativeMemory.allocate(64);
        bufB = NativeMemory.allocate(64);
        long access = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;
        mrA = domain.register(bufA, 64, access, 1, Fi.HMEM_SYSTEM);
        mrB = domain.register(bufB, 64, access, 2, Fi.HMEM_SYSTEM);
        // The first exchange sets the connection up (tcp;ofi_rxm needs both sides polling).
        for (int i = 0; i < 3; i++) {
            round();
        }
    }

    /** One round through the public API: b posts a receive, a sends 8 bytes with data, both complete. */
    void round() throws FabricException {
        // A refused post is retried after progress on both sides: shm and rxm set up the path
        // to a new peer only while the peer's queue is read as well.
        while (b.recv(bufB, 64, mrB.descriptor(), Fi.ADDR_UNSPEC, 2) == Endpoint.AGAIN) {
            cqB.read(batch, 1);
            cqA.read(batch, 1);
        }
        while (a.senddata(bufA, 8, mrA.descriptor(), 7, aToB, 1) == Endpoint.AGAIN) {
            cqA.read(batch, 1);
            cqB.read(batch, 1);
        }
        // Both queues are read until each has its completion: with manual progress (shm, rxm)
        // the send completes only while the receiver's queue is read too.
        boolean sent = false;
        boolean received = false;
        while (!sent || !received) {
            sent |= completed(cqA);
            received |= completed(cqB);
        }
    }

    private boolean completed(CompletionQueue cq) throws FabricException {
        int n = cq.read(batch, 1);
        if (n < 0) {
            throw new IllegalStateException("error completion in a benchmark round");
        }
        return n > 0;
    }

    @Override
    public void close() throws FabricException {
        mrA.close();
        mrB.close();
        a.close();
        b.close();
        avA.close();
        avB.close();
        cqA.close();
        cqB.close();
        domain.close();
        fabric.close();
        NativeMemory.free(bufA);
        NativeMemory.free(bufB);
    }
}
