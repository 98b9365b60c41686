package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What {@code fi_cq_readfrom} says of the sender (FI_SOURCE), with two senders into one target, on
 * real libfabric: the source of a received message is the sender's handle in the target's address
 * vector on both providers; of a remote write with immediate data, on shm only — ofi_rxm gives
 * both writers the same source, so ofinet looks at the source of remote writes only where the
 * provider is not rxm (docs/PROTOCOL.md, "What a peer can forge").
 */
@Timeout(60)
class SourcesIT {
    private static final long ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo, false", "shm, shm, true"})
    void theSourceOfMessagesAndWhereTrueOfWrites(String provider, String domainName, boolean writesToo)
            throws Exception {
        OfiProvider ofi = new OfiProvider();
        InfoHints hints = InfoHints.protocol().withProvider(provider).withDomain(domainName);
        Fabric fabric;
        try (InfoList offers = ofi.getinfo(hints.withCaps(hints.caps() | Fi.SOURCE))) {
            assertTrue(!offers.infos().isEmpty(), provider + " offers FI_SOURCE");
            assertEquals(Fi.SOURCE, offers.infos().get(0).caps() & Fi.SOURCE);
            fabric = ofi.openFabric(offers.infos().get(0));
        }
        try (Fabric f = fabric; Domain domain = f.openDomain(); Peer target = new Peer(domain);
                Peer one = new Peer(domain); Peer two = new Peer(domain); HostBuffer into = new HostBuffer(4096)) {
            Peer[] senders = {one, two};
            Map<Long, Long> handleByData = new HashMap<>();
            long[] toTarget = new long[2];
            for (int s = 0; s < 2; s++) {
                handleByData.put(100L + s, target.av.insert(senders[s].endpoint.name()));
                handleByData.put(200L + s, handleByData.get(100L + s));
                toTarget[s] = senders[s].av.insert(target.endpoint.name());
            }
            assertNotEquals(handleByData.get(100L), handleByData.get(101L));
            MemoryRegion mr = domain.register(into.address, into.size, ACCESS, 5, Fi.HMEM_SYSTEM);
            long remote = fabric.info().virtualAddressing() ? into.address : 0;
            for (int i = 0; i < 2; i++) {
                long at = into.address + 64L * i;
                long context = 50 + i;
                post(target, () -> target.endpoint.recv(at, 64, mr.descriptor(), Fi.ADDR_UNSPEC, context), senders);
            }
            for (int s = 0; s < 2; s++) {
                Peer from = senders[s];
                long dest = toTarget[s];
                long data = 100L + s;
                post(target, () -> from.endpoint.senddata(0, 0, 0, data, dest, 60), senders);
                long writeData = 200L + s;
                post(target, () -> from.endpoint.writedata(0, 0, 0, writeData, dest, remote + 1024, mr.key(), 61),
                        senders);
            }
            Map<Long, Long> sourceByData = new HashMap<>();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (sourceByData.size() < 4) {
                assertTrue(System.nanoTime() < deadline, "arrivals seen: " + sourceByData);
                progress(target, senders);
                for (Completion c : target.takeAll()) {
                    assertTrue(!c.failed(), c.toString());
                    if ((c.flags() & Fi.REMOTE_CQ_DATA) != 0) {
                        sourceByData.put(c.data(), c.source());
                    }
                }
            }
            System.out.println(provider + ": senders are handles " + handleByData.get(100L) + " and "
                    + handleByData.get(101L) + "; sources seen by immediate data " + sourceByData);
            assertEquals(handleByData.get(100L), sourceByData.get(100L), "the source of the first sender's message");
            assertEquals(handleByData.get(101L), sourceByData.get(101L), "the source of the second sender's message");
            if (writesToo) {
                assertEquals(handleByData.get(200L), sourceByData.get(200L), "the source of the first writer");
                assertEquals(handleByData.get(201L), sourceByData.get(201L), "the source of the second writer");
            } else {
                assertEquals(sourceByData.get(200L), sourceByData.get(201L), "two writers told apart after all");
            }
            mr.close();
        }
    }

    private interface Post {
        int post() throws Exception;
    }

    /** Posts until the provider takes it (rxm refuses posts to a new peer until connected). */
    private static void post(Peer target, Post post, Peer... others) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (post.post() != Endpoint.POSTED) {
            assertTrue(System.nanoTime() < deadline, "a post was refused for 20 s");
            progress(target, others);
        }
    }

    private static void progress(Peer target, Peer... others) throws Exception {
        target.progress();
        for (Peer p : others) {
            p.progress();
        }
    }
}
