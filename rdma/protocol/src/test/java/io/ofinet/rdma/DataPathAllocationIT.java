package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.Allocations;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data path allocates nothing: rounds of irecv, isend and test between two endpoints over
 * real shm, counted with the JVM's per-thread allocation counter, on whichever data path the JVM
 * runs (FFM on JDK 22+, JNA on Java 17): an eager message (1 KiB) and a rendezvous (4 KiB, above
 * shm's eager limit of 4,080 bytes: the receive's announcement, then a write), and with heads
 * on a 16 KiB send whose head goes before its announcement arrives.
 */
@Timeout(120)
class DataPathAllocationIT {

    @ParameterizedTest
    @ValueSource(ints = {1024, 4096, 16384})
    void sendReceiveAndTestAllocateNothing(int bytes) throws Exception {
        boolean heads = bytes > 4096;
        try (HostBuffer src = new HostBuffer(bytes).pattern(1);
                HostBuffer dst = new HostBuffer(bytes);
                Device device = Device.open(new OfiProvider(), Layouts.device("shm", new String[] {"shm"},
                        heads ? "\"eagerHead\": \"on\", \"eagerHeadMinSize\": 8192" : ""))) {
            // Two endpoints of one device, closed sender first: shm peers in one process share
            // their regions, and progress on one after the other has closed would touch unmapped
            // memory inside the provider (docs/FABRIC.md).
            RdmaEndpoint a = device.openEndpoint();
            RdmaEndpoint b = device.openEndpoint();
            ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
            SendComm send = pair.send();
            RecvComm recv = pair.recv();
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            long[] addresses = {dst.address};
            long[] sizes = {bytes};
            int[] tags = {0};
            MrHandle[] mrs = {dstMr};
            long[] received = new long[1];
            long perRound = Allocations.perRun(30_000, 20_000, () -> {
                RecvRequest r = recv.irecv(1, addresses, sizes, tags, mrs);
                SendRequest s = send.isend(src.address, bytes, 0, srcMr);
                boolean sent = false;
                boolean got = false;
                while (!sent || !got) {
                    sent = sent || s.test(null);
                    got = got || r.test(received);
                }
            });
            assertEquals(bytes, received[0]);
            assertEquals(heads, a.pools.counts.headsSent() > 0, "heads sent: " + a.pools.counts.headsSent());
            assertTrue(perRound < 8, "the " + OfiProvider.dataPathName() + " data path allocated " + perRound
                    + " bytes per round of " + bytes + " bytes");
            srcMr.close();
            dstMr.close();
            send.close();
            recv.close();
            a.close();
            b.close();
        }
    }
}
