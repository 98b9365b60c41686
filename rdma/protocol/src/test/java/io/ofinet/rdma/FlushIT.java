package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.HostMemory;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.FlushRequest;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code iflush} over real libfabric: after a transfer, the flush reads the first bytes of the
 * received buffer back into the endpoint's flush buffer with an RDMA read on every data rail, and
 * reports done only once those reads were posted and completed — counted by the endpoint. With
 * {@code gdrFlushDisable} it completes at once and reads nothing.
 */
@Timeout(60)
class FlushIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void theFlushReadsTheReceivedBytesAndCompletesOnlyAfterItsReads(String provider, String domain) throws Exception {
        try (HostBuffer src = new HostBuffer(4096).pattern(9);
                HostBuffer dst = new HostBuffer(4096);
                Device device = Device.open(new OfiProvider(), Layouts.device(provider, new String[] {domain}, ""))) {
            RdmaEndpoint a = device.openEndpoint();
            RdmaEndpoint b = device.openEndpoint();
            ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
            SendComm send = pair.send();
            RecvComm recv = pair.recv();
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {4096}, new int[] {0},
                    new MrHandle[] {dstMr});
            SendRequest s = send.isend(src.address, 4096, 0, srcMr);
            boolean sent = false;
            boolean got = false;
            while (!sent || !got) {
                sent = sent || s.test(null);
                got = got || r.test(null);
            }
            NativeMemory.fill(b.flushBuffer().address(), 8, (byte) 0);
            assertEquals(0, b.counts().readsPosted());
            FlushRequest f = recv.iflush(1, new long[] {dst.address}, new long[] {4096}, new MrHandle[] {dstMr});
            long steps = 0;
            while (true) {
                // Read before the test: the watchdog may complete the read between a test and a read after it.
                long readsBefore = b.counts().readsCompleted();
                if (f.test(null)) {
                    break;
                }
                steps++;
                assertTrue(readsBefore < 1, "a read had completed but the flush was not reported done");
            }
            assertEquals(1, b.counts().readsPosted(), "one read per data rail");
            assertEquals(1, b.counts().readsCompleted(), "the flush was reported done before its read completed");
            byte[] flushed = new byte[8];
            HostMemory memory = NativeMemory.host();
            memory.read(b.flushBuffer().address(), flushed, 0, 8);
            assertArrayEquals(dst.bytes(0, 8), flushed, "the read brought the received bytes into the flush buffer");
            System.out.println(provider + ": flush done after " + steps + " test calls; reads posted "
                    + b.counts().readsPosted() + ", completed " + b.counts().readsCompleted());
            srcMr.close();
            dstMr.close();
            send.close();
            recv.close();
            a.close();
            b.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aDisabledFlushReadsNothing(String provider, String domain) throws Exception {
        try (HostBuffer dst = new HostBuffer(4096);
                Device device = Device.open(new OfiProvider(), Layouts.device(provider, new String[] {domain},
                        "\"gdrFlushDisable\": true"))) {
            RdmaEndpoint a = device.openEndpoint();
            RdmaEndpoint b = device.openEndpoint();
            ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
            RecvComm recv = pair.recv();
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            FlushRequest f = recv.iflush(1, new long[] {dst.address}, new long[] {4096}, new MrHandle[] {dstMr});
            assertTrue(f.test(null));
            assertEquals(0, b.counts().readsPosted());
            dstMr.close();
            pair.send().close();
            recv.close();
            a.close();
            b.close();
        }
    }
}
