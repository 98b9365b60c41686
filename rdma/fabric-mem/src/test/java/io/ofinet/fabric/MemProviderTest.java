package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import io.ofinet.fabric.testing.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the in-memory provider enforces beyond the shared contract. */
class MemProviderTest {
    private static final long ALL = FabricContract.ALL_ACCESS;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private Domain domain;

    private Peer[] peers(MemProvider provider) throws Exception {
        try (InfoList offers = provider.getinfo(InfoHints.protocol())) {
            Fabric fabric = provider.openFabric(offers.infos().get(0));
            resources.add(fabric);
            domain = fabric.openDomain();
            resources.add(domain);
        }
        Peer a = new Peer(domain);
        Peer b = new Peer(domain);
        resources.add(a);
        resources.add(b);
        return new Peer[] {a, b};
    }

    private HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(size);
        resources.add(buffer);
        return buffer;
    }

    private MemoryRegion region(HostBuffer buffer, long key) throws FabricException {
        MemoryRegion mr = domain.register(buffer.address, buffer.size, ALL, key, Fi.HMEM_SYSTEM);
        resources.add(mr);
        return mr;
    }

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private static Completion await(Peer waiter, long context, Peer... all) throws Exception {
        Completion[] c = new Completion[1];
        Progress.until(Duration.ofSeconds(5), () -> (c[0] = waiter.take(context)) != null, all);
        return c[0];
    }

    @Test
    void endpointScopeRefusesUnboundUnenabledAndWronglyBoundRegistrations() throws Exception {
        Peer[] p = peers(MemProvider.builder().endpointMr().build());
        Peer a = p[0];
        Peer b = p[1];
        long aToB = a.av.insert(b.endpoint.name());
        HostBuffer src = buffer(128).pattern(1);
        HostBuffer dst = buffer(128);
        MemoryRegion srcMr = region(src, 1);
        MemoryRegion dstMr = region(dst, 2);

        // Unbound: no key yet, and the descriptor cannot be used.
        FabricException noKey = assertThrows(FabricException.class, dstMr::key);
        assertEquals(FiErrno.FI_EOPBADSTATE, noKey.errno());
        FabricException unbound = assertThrows(FabricException.class,
                () -> a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, 0, 2, 1));
        assertTrue(unbound.getMessage().contains("not bound and enabled"), unbound.getMessage());

        // Enable before bind fails; bind after enable fails.
        assertThrows(FabricException.class, srcMr::enable);
        srcMr.bind(a.endpoint, 0);
        srcMr.enable();
        assertEquals(FiErrno.FI_EOPBADSTATE,
                assertThrows(FabricException.class, () -> srcMr.bind(a.endpoint, 0)).errno());

        // The target registration bound to the initiator's endpoint, not the target's: the
        // control-write-with-a-data-rail-descriptor bug of the C++ anchor, caught here.
        dstMr.bind(a.endpoint, 0);
        dstMr.enable();
        a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, 0, dstMr.key(), 7);
        Completion refused = await(a, 7, a, b);
        assertEquals(FiErrno.FI_EACCES, refused.errno());
        assertTrue(refused.message().contains("not bound and enabled on the target endpoint"), refused.message());
        assertEquals(0, dst.get(0));

        // A local descriptor of a registration bound to another endpoint is refused at once.
        FabricException wrongLocal = assertThrows(FabricException.class,
                () -> b.endpoint.send(src.address, 8, srcMr.descriptor(), b.av.insert(a.endpoint.name()), 9));
        assertTrue(wrongLocal.getMessage().contains("bound to another endpoint"), wrongLocal.getMessage());

        // An endpoint with bound registrations cannot close before them.
        FabricException busy = assertThrows(FabricException.class, () -> a.endpoint.close());
        assertEquals(FiErrno.FI_EBUSY, busy.errno());
        srcMr.close();
        dstMr.close();
    }

    @Test
    void domainScopeRefusesBindingWithENOSYS() throws Exception {
        peers(MemProvider.create());
        HostBuffer buf = buffer(64);
        MemoryRegion mr = region(buf, 1);
        Peer any = (Peer) resources.get(2);
        assertEquals(FiErrno.FI_ENOSYS, assertThrows(FabricException.class, () -> mr.bind(any.endpoint, 0)).errno());
    }

    @Test
    void localRegistrationModeRequiresADescriptorCoveringTheBuffer() throws Exception {
        Peer[] p = peers(MemProvider.create());
        long aToB = p[0].av.insert(p[1].endpoint.name());
        HostBuffer src = buffer(64);
        MemoryRegion mr = region(src, 1);
        assertThrows(FabricException.class, () -> p[0].endpoint.send(src.address, 8, 0, aToB, 1));
        FabricException outside = assertThrows(FabricException.class,
                () -> p[0].endpoint.send(src.address + 32, 64, mr.descriptor(), aToB, 1));
        assertTrue(outside.getMessage().contains("outside its registration"), outside.getMessage());
    }

    @Test
    void nothingArrivesUntilTheTargetReadsItsQueue() throws Exception {
        Peer[] p = peers(MemProvider.create());
        Peer a = p[0];
        Peer b = p[1];
        long aToB = a.av.insert(b.endpoint.name());
        HostBuffer src = buffer(64).pattern(4);
        HostBuffer dst = buffer(64);
        MemoryRegion srcMr = region(src, 1);
        MemoryRegion dstMr = region(dst, 2);
        a.endpoint.write(src.address, 64, srcMr.descriptor(), aToB, 0, dstMr.key(), 1);
        Progress.spin(Duration.ofMillis(20), a);
        assertNull(a.take(1), "the initiator completes only after delivery");
        assertEquals(0, dst.get(1));
        await(a, 1, a, b);
        assertArrayEquals(src.bytes(0, 64), dst.bytes(0, 64));
    }

    @Test
    void truncatedReceiveCompletesWithAnErrorAndWritesNothingPastTheBuffer() throws Exception {
        Peer[] p = peers(MemProvider.create());
        long aToB = p[0].av.insert(p[1].endpoint.name());
        HostBuffer src = buffer(128).pattern(4);
        HostBuffer dst = buffer(128).fill((byte) 0x77);
        MemoryRegion srcMr = region(src, 1);
        MemoryRegion dstMr = region(dst, 2);
        p[1].endpoint.recv(dst.address, 64, dstMr.descriptor(), Fi.ADDR_UNSPEC, 5);
        p[0].endpoint.send(src.address, 100, srcMr.descriptor(), aToB, 6);
        Completion recv = await(p[1], 5, p[0], p[1]);
        assertEquals(FiErrno.FI_ETRUNC, recv.errno());
        assertEquals(0x77, dst.get(64));
        assertFalse(await(p[0], 6, p[0], p[1]).failed());
    }

    @Test
    void injectedFaults() throws Exception {
        MemProvider provider = MemProvider.create();
        Peer[] p = peers(provider);
        Peer a = p[0];
        Peer b = p[1];
        long aToB = a.av.insert(b.endpoint.name());
        HostBuffer src = buffer(64);
        MemoryRegion srcMr = region(src, 1);
        HostBuffer dst = buffer(64);
        MemoryRegion dstMr = region(dst, 2);

        provider.faults().failNextPosts(a.endpoint, 3, FiErrno.FI_EAGAIN);
        for (int i = 0; i < 3; i++) {
            assertEquals(Endpoint.AGAIN, a.endpoint.send(src.address, 8, srcMr.descriptor(), aToB, 1));
        }
        provider.faults().failNextPosts(a.endpoint, 1, FiErrno.FI_EIO);
        assertEquals(FiErrno.FI_EIO, assertThrows(FabricException.class,
                () -> a.endpoint.send(src.address, 8, srcMr.descriptor(), aToB, 1)).errno());

        provider.faults().failNextCompletions(a.endpoint, 1, FiErrno.FI_EIO);
        a.endpoint.write(src.address, 8, srcMr.descriptor(), aToB, 0, dstMr.key(), 2);
        assertEquals(FiErrno.FI_EIO, await(a, 2, a, b).errno());

        // A vanished peer: what is in flight to it and what follows fail at the initiator.
        a.endpoint.write(src.address, 8, srcMr.descriptor(), aToB, 0, dstMr.key(), 3);
        provider.faults().vanish(b.endpoint);
        assertEquals(FiErrno.FI_EHOSTUNREACH, await(a, 3, a).errno());
        a.endpoint.send(src.address, 8, srcMr.descriptor(), aToB, 4);
        assertEquals(FiErrno.FI_EHOSTUNREACH, await(a, 4, a).errno());
    }

    /** A fault armed for one kind of operation lets the others by and waits for its own. */
    @Test
    void faultsArmedForOneKindOfOperationPassTheOthersBy() throws Exception {
        MemProvider provider = MemProvider.create();
        Peer[] p = peers(provider);
        Peer a = p[0];
        Peer b = p[1];
        long aToB = a.av.insert(b.endpoint.name());
        HostBuffer src = buffer(64);
        MemoryRegion srcMr = region(src, 1);
        HostBuffer dst = buffer(64);
        MemoryRegion dstMr = region(dst, 2);
        b.endpoint.recv(dst.address, 64, dstMr.descriptor(), Fi.ADDR_UNSPEC, 9);

        provider.faults().failNextPosts(a.endpoint, MemFaults.Ops.WRITES, 1, FiErrno.FI_EIO);
        assertEquals(Endpoint.POSTED, a.endpoint.senddata(0, 0, 0, 7, aToB, 1), "a message is not a write");
        assertFalse(await(a, 1, a, b).failed());
        assertEquals(FiErrno.FI_EIO, assertThrows(FabricException.class,
                () -> a.endpoint.writedata(src.address, 8, srcMr.descriptor(), 7, aToB, 0, dstMr.key(), 2)).errno());
        assertEquals(Endpoint.POSTED, a.endpoint.write(src.address, 8, srcMr.descriptor(), aToB, 0, dstMr.key(), 3),
                "the fault was used up");
        assertFalse(await(a, 3, a, b).failed());

        provider.faults().failNextCompletions(a.endpoint, MemFaults.Ops.WRITES, 1, FiErrno.FI_EIO);
        b.endpoint.recv(dst.address, 64, dstMr.descriptor(), Fi.ADDR_UNSPEC, 10);
        a.endpoint.send(src.address, 8, srcMr.descriptor(), aToB, 4);
        assertFalse(await(a, 4, a, b).failed(), "a message is not a write");
        a.endpoint.write(src.address, 8, srcMr.descriptor(), aToB, 0, dstMr.key(), 5);
        assertEquals(FiErrno.FI_EIO, await(a, 5, a, b).errno());
    }

    /** A completion failed after delivery: the target has the message and the write, the initiator errors. */
    @Test
    void completionsFailedAfterDeliveryDeliverAllTheSame() throws Exception {
        MemProvider provider = MemProvider.create();
        Peer[] p = peers(provider);
        Peer a = p[0];
        Peer b = p[1];
        long aToB = a.av.insert(b.endpoint.name());
        HostBuffer src = buffer(64);
        MemoryRegion srcMr = region(src, 1);
        HostBuffer dst = buffer(64);
        MemoryRegion dstMr = region(dst, 2);
        b.endpoint.recv(dst.address, 64, dstMr.descriptor(), Fi.ADDR_UNSPEC, 9);
        provider.faults().failNextCompletionsAfterDelivery(a.endpoint, MemFaults.Ops.ANY, 2, FiErrno.FI_ECANCELED);
        src.fill((byte) 0x41);
        a.endpoint.senddata(src.address, 1, srcMr.descriptor(), 7, aToB, 1);
        assertEquals(FiErrno.FI_ECANCELED, await(a, 1, a, b).errno());
        Completion received = await(b, 9, a, b);
        assertFalse(received.failed());
        assertEquals(7, received.data());
        assertEquals(0x41, dst.get(0));
        src.fill((byte) 0x42);
        a.endpoint.write(src.address, 1, srcMr.descriptor(), aToB, 8, dstMr.key(), 2);
        assertEquals(FiErrno.FI_ECANCELED, await(a, 2, a, b).errno());
        assertEquals(0x42, dst.get(8));
        a.endpoint.write(src.address, 1, srcMr.descriptor(), aToB, 16, dstMr.key(), 3);
        assertFalse(await(a, 3, a, b).failed(), "the fault was used up");
    }

    @Test
    void outOfOrderCompletionsStillDeliverEveryOne() throws Exception {
        Peer[] p = peers(MemProvider.builder().outOfOrderCompletions(3).build());
        long aToB = p[0].av.insert(p[1].endpoint.name());
        HostBuffer src = buffer(64);
        HostBuffer dst = buffer(64);
        MemoryRegion srcMr = region(src, 1);
        MemoryRegion dstMr = region(dst, 2);
        for (int i = 0; i < 50; i++) {
            p[0].endpoint.write(src.address, 8, srcMr.descriptor(), aToB, 0, dstMr.key(), 100 + i);
        }
        List<Long> order = new ArrayList<>();
        Progress.until(Duration.ofSeconds(5), () -> {
            for (Completion c : p[0].takeAll()) {
                order.add(c.context());
            }
            return order.size() == 50;
        }, p[0], p[1]);
        List<Long> sorted = new ArrayList<>(order);
        sorted.sort(null);
        assertFalse(order.equals(sorted), "completions came in posting order: " + order);
        assertEquals(100L, sorted.get(0));
        assertEquals(149L, sorted.get(49));
    }

    @Test
    void offersFollowTheCallersRegistrationModes() throws Exception {
        MemProvider endpointMr = MemProvider.builder().endpointMr().build();
        try (InfoList none = endpointMr.getinfo(InfoHints.protocol().withMrMode(Fi.MR_LOCAL | Fi.MR_ALLOCATED))) {
            assertTrue(none.infos().isEmpty(), "a caller that cannot bind gets no FI_MR_ENDPOINT offer");
        }
        try (InfoList rails = MemProvider.builder().domains(3).build().getinfo(InfoHints.protocol())) {
            assertEquals(3, rails.infos().size());
            assertEquals("mem2", rails.infos().get(2).domain());
        }
    }

    @Test
    void cancelFindsOnlyAPendingReceiveAndNeedsAnOpenEndpoint() throws Exception {
        Peer[] p = peers(MemProvider.create());
        p[1].endpoint.recv(0, 0, 0, Fi.ADDR_UNSPEC, 7);
        assertEquals(Endpoint.POSTED, p[1].endpoint.cancel(7));
        assertEquals(Endpoint.NOT_FOUND, p[1].endpoint.cancel(7), "cancelled already");
        assertEquals(Endpoint.NOT_FOUND, p[1].endpoint.cancel(99), "nothing by that context");
        assertEquals(FiErrno.FI_ECANCELED, await(p[1], 7, p[0], p[1]).errno());
        p[1].endpoint.close();
        FabricException closed = assertThrows(FabricException.class, () -> p[1].endpoint.cancel(8));
        assertEquals(FiErrno.FI_EOPBADSTATE, closed.errno());
    }
}
