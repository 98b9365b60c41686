package io.ofinet.benchmarks.fabric;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.EndpointPair;

/**
 * Two endpoints of one domain of a real provider ({@code shm} unless the environment variable
 * {@code OFINET_BENCH_PROVIDER} names another; JMH's forks inherit it), each with its queue, address vector and a
 * registered 64-byte buffer, connected to each other.
 */
final class BenchFabric implements AutoCloseable {
    final Fabric fabric;
    final Domain domain;
    final EndpointPair endpoints;
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
        endpoints = new EndpointPair(domain, 1);
        // The first exchange sets the connection up (tcp;ofi_rxm needs both sides polling).
        for (int i = 0; i < 3; i++) {
            round();
        }
    }

    /**
     * One round through the public API: b posts a receive, a sends 8 bytes with data, both complete.
     * Unlike {@link EndpointPair#sendAndReceive} it reads one completion a call, as its C twin does.
     */
    void round() throws FabricException {
        EndpointPair p = endpoints;
        // A refused post is retried after progress on both sides: shm and rxm set up the path
        // to a new peer only while the peer's queue is read as well.
        while (p.b.recv(p.bufB, 64, p.mrB.descriptor(), Fi.ADDR_UNSPEC, 2) == Endpoint.AGAIN) {
            p.cqB.read(batch, 1);
            p.cqA.read(batch, 1);
        }
        while (p.a.senddata(p.bufA, 8, p.mrA.descriptor(), 7, p.aToB, 1) == Endpoint.AGAIN) {
            p.cqA.read(batch, 1);
            p.cqB.read(batch, 1);
        }
        // Both queues are read until each has its completion: with manual progress (shm, rxm)
        // the send completes only while the receiver's queue is read too.
        boolean sent = false;
        boolean received = false;
        while (!sent || !received) {
            sent |= completed(p.cqA);
            received |= completed(p.cqB);
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
        endpoints.close();
        domain.close();
        fabric.close();
    }
}
