package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.rdma.rail.Peers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On shm an address vector entry stays while its peer's process lives (a removed entry of a live
 * peer would be named as the source of what it sends next), and shm counts every entry against
 * its limit of 256 peers. A peer endpoint that has closed is gone for good whatever its process
 * does: its entry leaves too. Endpoints of one process closing one after another, as contexts
 * opened and finalized do, otherwise filled the vector of the endpoint that outlives them.
 */
@Timeout(300)
class ShmClosedPeerIT {
    @Test
    void theEntriesOfAPeerEndpointThatClosedLeaveTheAddressVector() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm");
        int peers = 20;
        try (Device device = Device.open(new OfiProvider(), Layouts.device("shm", new String[] {"shm"}, ""))) {
            RdmaEndpoint a = device.openEndpoint();
            int before = a.peers.entries();
            for (int i = 0; i < peers; i++) {
                RdmaEndpoint b = device.openEndpoint();
                ListenComm listen = b.listen();
                ConnectedPair pair = ConnectionTest.establish(a, b, listen);
                pair.send().close();
                pair.recv().close();
                listen.close();
                b.close();
            }
            assertTrue(a.peers.entries() > before, "the closed peers' addresses were inserted");
            long deadline = System.nanoTime() + Peers.RETIRED_KEPT_NANOS + 30_000_000_000L;
            while (a.peers.entries() != before && System.nanoTime() < deadline) {
                a.progress();
                Thread.sleep(1);
            }
            assertEquals(before, a.peers.entries(), "the entries of " + peers + " peer endpoints that closed");
        }
    }
}
