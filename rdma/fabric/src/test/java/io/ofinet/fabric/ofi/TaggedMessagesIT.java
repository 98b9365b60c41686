package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tagged messages and cancelled receives ({@code fi_trecv}, {@code fi_tsenddata}, {@code
 * fi_cancel}) through the binding, on real libfabric, through whichever data path is active (FFM
 * on JDK 22+, JNA on Java 17): a message lands in the receive whose tag matches, not in the one
 * posted first; the ignored bits are ignored; a message longer than its receive fails that
 * receive and writes nothing past it; a cancelled receive completes with FI_ECANCELED and takes
 * nothing more. The way a large transfer could travel whole on tcp (docs/PERFORMANCE.md, "tcp: a
 * whole message instead of a write").
 */
@Timeout(60)
class TaggedMessagesIT {
    private static final long ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;
    private static final int SLOT = 4096;

    /** Two peers on one domain, a registered source and a registered target of four slots. */
    private static final class Pair implements AutoCloseable {
        final Fabric fabric;
        final Domain domain;
        final Peer sender;
        final Peer receiver;
        final long toReceiver;
        final HostBuffer src = new HostBuffer(4L * SLOT).pattern(3);
        final HostBuffer dst = new HostBuffer(4L * SLOT).fill((byte) 0x5A);
        final MemoryRegion srcMr;
        final MemoryRegion dstMr;

        Pair(String provider, String domainName) throws FabricException {
            OfiProvider ofi = new OfiProvider();
            InfoHints hints = InfoHints.protocol().withProvider(provider).withDomain(domainName);
            try (InfoList offers = ofi.getinfo(hints.withCaps(hints.caps() | Fi.TAGGED))) {
                assertTrue(!offers.infos().isEmpty(), provider + " offers FI_TAGGED");
                assertEquals(Fi.TAGGED, offers.infos().get(0).caps() & Fi.TAGGED);
                fabric = ofi.openFabric(offers.infos().get(0));
            }
            domain = fabric.openDomain();
            sender = new Peer(domain);
            receiver = new Peer(domain);
            toReceiver = sender.av.insert(receiver.endpoint.name());
            receiver.av.insert(sender.endpoint.name());
            srcMr = domain.register(src.address, src.size, ACCESS, 1, Fi.HMEM_SYSTEM);
            dstMr = domain.register(dst.address, dst.size, ACCESS, 2, Fi.HMEM_SYSTEM);
        }

        void receive(int slot, long len, long tag, long ignore, long context) throws FabricException {
            assertEquals(Endpoint.POSTED, receiver.endpoint.trecv(dst.address + (long) slot * SLOT, len,
                    dstMr.descriptor(), Fi.ADDR_UNSPEC, tag, ignore, context));
        }

        /** Sends slot {@code slot} of the source, retrying while rxm brings the connection up. */
        void send(int slot, long len, long data, long tag, long context) throws FabricException {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (sender.endpoint.tsenddata(src.address + (long) slot * SLOT, len, srcMr.descriptor(), data,
                    toReceiver, tag, context) == Endpoint.AGAIN) {
                assertTrue(System.nanoTime() < deadline, "the send was refused for 20 s");
                progress();
            }
        }

        void progress() throws FabricException {
            sender.progress();
            receiver.progress();
        }

        /** The receiver's completions until {@code count} have come. */
        List<Completion> arrivals(int count) throws FabricException {
            List<Completion> seen = new ArrayList<>();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (seen.size() < count) {
                assertTrue(System.nanoTime() < deadline, "arrivals so far: " + seen);
                progress();
                seen.addAll(receiver.takeAll());
            }
            return seen;
        }

        Completion arrival(long context) throws FabricException {
            for (Completion c : arrivals(1)) {
                assertEquals(context, c.context(), c.toString());
                return c;
            }
            throw new AssertionError("unreachable");
        }

        @Override
        public void close() throws FabricException {
            for (int i = 0; i < 50; i++) {
                progress();
            }
            receiver.close();
            sender.close();
            srcMr.close();
            dstMr.close();
            src.close();
            dst.close();
            domain.close();
            fabric.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aMessageLandsInTheReceiveWithItsTagNotTheFirstPosted(String provider, String domainName) throws Exception {
        try (Pair p = new Pair(provider, domainName)) {
            p.receive(0, SLOT, 7, 0, 70);
            p.receive(1, SLOT, 8, 0, 80);
            p.send(1, 1000, 0xBEEF, 8, 1);
            Completion second = p.arrival(80);
            assertTrue(!second.failed(), second.toString());
            assertEquals(1000, second.len());
            assertEquals(0xBEEF, second.data());
            assertTrue((second.flags() & Fi.TAGGED) != 0 && (second.flags() & Fi.REMOTE_CQ_DATA) != 0,
                    Long.toHexString(second.flags()));
            assertArrayEquals(p.src.bytes(SLOT, 1000), p.dst.bytes(SLOT, 1000));
            assertEquals(0x5A, p.dst.get(0), "the receive posted first, with another tag, is untouched");
            p.send(0, 300, 0xCAFE, 7, 2);
            Completion first = p.arrival(70);
            assertEquals(300, first.len());
            assertArrayEquals(p.src.bytes(0, 300), p.dst.bytes(0, 300));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void theIgnoredBitsOfATagAreIgnored(String provider, String domainName) throws Exception {
        try (Pair p = new Pair(provider, domainName)) {
            p.receive(2, SLOT, 0x1230, 0xF, 20);
            p.send(2, 64, 1, 0x1235, 3);
            Completion c = p.arrival(20);
            assertTrue(!c.failed(), c.toString());
            assertArrayEquals(p.src.bytes(2L * SLOT, 64), p.dst.bytes(2L * SLOT, 64));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aMessageLongerThanItsReceiveFailsItAndWritesNothingPastIt(String provider, String domainName)
            throws Exception {
        try (Pair p = new Pair(provider, domainName)) {
            p.receive(0, 1024, 5, 0, 50);
            p.send(0, 3000, 1, 5, 4);
            Completion c = p.arrival(50);
            assertEquals(FiErrno.FI_ETRUNC, c.errno(), c.toString());
            for (long i = 1024; i < SLOT; i++) {
                assertEquals(0x5A, p.dst.get(i), "byte " + i + " past the receive");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aCancelledReceiveCompletesCancelledAndTakesNothing(String provider, String domainName) throws Exception {
        try (Pair p = new Pair(provider, domainName)) {
            p.receive(0, SLOT, 9, 0, 90);
            assertEquals(Endpoint.POSTED, p.receiver.endpoint.cancel(90));
            Completion cancelled = p.arrival(90);
            assertEquals(FiErrno.FI_ECANCELED, cancelled.errno(), cancelled.toString());
            p.receive(3, SLOT, 9, 0, 91);
            p.send(0, 512, 2, 9, 5);
            Completion c = p.arrival(91);
            assertTrue(!c.failed(), c.toString());
            assertArrayEquals(p.src.bytes(0, 512), p.dst.bytes(3L * SLOT, 512));
            assertEquals(0x5A, p.dst.get(0), "the cancelled receive's buffer is untouched");
            assertEquals(Endpoint.POSTED, p.receiver.endpoint.cancel(12345), "cancelling nothing is harmless");
        }
    }
}
