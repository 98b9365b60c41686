package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Peers;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Closed communicators are released: nothing of the endpoint, its duties or its peers' records keeps
 * them reachable (a framework opens and closes communicators all day; NCCL does).
 */
class CommLifetimeTest extends TwoHostFixture {

    @Test
    void closedCommunicatorsBecomeUnreachable() throws Exception {
        openAndConnect(MemProvider.builder().domains(1).build(), Layouts.mem(1, ""));
        List<WeakReference<Object>> closed = new ArrayList<>();
        for (int lifetime = 0; lifetime < 20; lifetime++) {
            ListenComm listen = b.listen();
            ConnectedPair pair = ConnectionTest.establish(a, b, listen);
            SendComm send = pair.send();
            RecvComm recv = pair.recv();
            transfer(send, recv, 4096, 4096, lifetime);
            send.close();
            recv.close();
            listen.close();
            spin(10);
            closed.add(new WeakReference<>(send));
            closed.add(new WeakReference<>(recv));
            closed.add(new WeakReference<>(listen));
        }
        for (int i = 0; i < 10 && closed.stream().anyMatch(r -> r.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        for (WeakReference<Object> r : closed) {
            assertNull(r.get(), "a closed communicator is still reachable");
        }
    }

    /**
     * Each peer address is in an endpoint's address vector once, however many communicators come
     * and go: with an address vector that counts every insert, as shm's does (256 in libfabric
     * 1.17), the 100 lifetimes here would fail at about the eighth without it.
     */
    @Test
    void addressesAreInsertedOncePerPeerAndRemovedWhenUnused() throws Exception {
        openAndConnect(MemProvider.builder().domains(1).avEntriesMax(16).build(), Layouts.mem(1, ""));
        int entriesA = a.peers.entries();
        int entriesB = b.peers.entries();
        for (int lifetime = 0; lifetime < 100; lifetime++) {
            ListenComm listen = b.listen();
            ConnectedPair pair = ConnectionTest.establish(a, b, listen);
            transfer(pair.send(), pair.recv(), 64, 64, lifetime);
            pair.send().close();
            pair.recv().close();
            listen.close();
        }
        assertEquals(entriesA, a.peers.entries(), "a's address vector entries after 100 lifetimes");
        assertEquals(entriesB, b.peers.entries(), "b's address vector entries after 100 lifetimes");
    }

    /** A peer no connection uses any more leaves the address vector a while after its last close. */
    @Test
    void anUnusedPeerLeavesTheAddressVector() throws Exception {
        openAndConnect(MemProvider.builder().domains(1).build(), Layouts.mem(1, ""));
        int before = a.peers.entries();
        RdmaEndpoint c = deviceB.openEndpoint();
        ListenComm listen = c.listen();
        ConnectedPair pair = ConnectionTest.establish(a, c, listen);
        assertEquals(true, a.peers.entries() > before, "c's addresses were inserted");
        pair.send().close();
        pair.recv().close();
        listen.close();
        long deadline = System.nanoTime() + Peers.RETIRED_KEPT_NANOS + 5_000_000_000L;
        while (a.peers.entries() != before && System.nanoTime() < deadline) {
            a.progress();
            c.progress();
            Thread.sleep(1);
        }
        assertEquals(before, a.peers.entries(), "c's addresses were removed");
        assertEquals(before, a.statistics().addressEntries());
    }

    /** shm's full address vector is an error naming its limit, not a bare FI_EINVAL. */
    @Test
    void aFullShmAddressVectorIsNamed() throws Exception {
        // Each endpoint's own address takes one entry: room for one more peer address.
        openAndConnect(MemProvider.builder().named("shm").domains(1).avEntriesMax(2).build(),
                Layouts.device("shm", new String[] {"mem0"}, ""));
        RdmaEndpoint c = deviceB.openEndpoint();
        ListenComm listen = c.listen();
        RdmaException e = assertThrows(RdmaException.class, () -> ConnectionTest.establish(a, c, listen));
        assertTrue(e.getMessage().contains("provider shm") && e.getMessage().contains("SMR_MAX_PEERS")
                && e.getMessage().contains("too many peers at once"), e.getMessage());
    }
}
