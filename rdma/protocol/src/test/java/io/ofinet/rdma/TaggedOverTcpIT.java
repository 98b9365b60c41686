package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tagged messages over real {@code tcp;ofi_rxm} on loopback, where they are the default with one
 * data rail (docs/PROTOCOL.md, "Tagged messages"): two communicators share a pair of endpoints and
 * are driven from two threads, each streaming messages of every kind of size — eager, small into
 * large buffers, large — into 2 MiB receive buffers, some posted before their sends and some
 * after. Every byte arrives, nothing is written, a send too large is refused on both sides, and no
 * tagged receive is left posted at the end.
 */
@Timeout(180)
class TaggedOverTcpIT extends TwoHostFixture {
    private static final int BUFFER = 2 << 20;
    private static final int CANARY = 64;
    private static final int ROUNDS = 150;

    @Test
    void twoThreadsStreamEverySizeIntoTaggedReceivesOnSharedEndpoints() throws Exception {
        try (Device device = Device.open(new OfiProvider(), Layouts.device("tcp;ofi_rxm", new String[] {"lo"}, ""))) {
            a = device.openEndpoint();
            b = device.openEndpoint();
            SendComm[] sends = new SendComm[2];
            RecvComm[] recvs = new RecvComm[2];
            for (int c = 0; c < 2; c++) {
                ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
                sends[c] = pair.send();
                recvs[c] = pair.recv();
            }
            int aOps = a.pools.ops.inUse();
            int bOps = b.pools.ops.inUse();
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                List<Future<Long>> streams = new ArrayList<>();
                for (int c = 0; c < 2; c++) {
                    int comm = c;
                    streams.add(threads.submit(() -> stream(sends[comm], recvs[comm], comm)));
                }
                for (Future<Long> f : streams) {
                    assertEquals(ROUNDS, f.get());
                }
            } finally {
                threads.shutdownNow();
            }
            assertTrue(a.pools.counts.taggedSent() > ROUNDS, "tagged messages: " + a.pools.counts.taggedSent());
            assertEquals(0, a.pools.counts.writesPosted() + a.pools.counts.writesNoticed(), "writes");
            assertEquals(0, a.pools.counts.headsSent(), "heads");
            refusesASendTooLarge(sends[0], recvs[0]);
            assertOpsReturn(aOps, bOps);
            for (int c = 0; c < 2; c++) {
                sends[c].close();
                recvs[c].close();
            }
        }
    }

    /** One communicator's stream, driven by this thread alone; returns the rounds done. */
    private long stream(SendComm send, RecvComm recv, int comm) throws Exception {
        SplittableRandom random = new SplittableRandom(31 + comm);
        int[] sizes = {0, 1, 8192, 8193, 32768, 32769, 65536, 1 << 20, BUFFER};
        try (HostBuffer src = new HostBuffer(BUFFER).pattern(comm + 1);
                HostBuffer dst = new HostBuffer(BUFFER + CANARY)) {
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            long rounds = 0;
            for (int round = 0; round < ROUNDS; round++) {
                dst.fill((byte) 0x5A);
                int size = random.nextInt(4) == 0 ? random.nextInt(BUFFER + 1) : sizes[random.nextInt(sizes.length)];
                int offset = size == 0 ? 0 : random.nextInt(BUFFER - size + 1);
                boolean receiveFirst = random.nextBoolean();
                RecvRequest r = null;
                if (receiveFirst) {
                    r = recv.irecv(1, new long[] {dst.address}, new long[] {BUFFER}, new int[] {round},
                            new MrHandle[] {dstMr});
                }
                SendRequest s = send.isend(src.address + offset, size, round, srcMr);
                if (!receiveFirst) {
                    r = recv.irecv(1, new long[] {dst.address}, new long[] {BUFFER}, new int[] {round},
                            new MrHandle[] {dstMr});
                }
                long[] got = new long[1];
                boolean sent = false;
                boolean received = false;
                while (!sent || !received) {
                    sent = sent || s.test(null);
                    received = received || r.test(got);
                }
                assertEquals(size, got[0], "communicator " + comm + ", round " + round);
                assertArrayEquals(src.bytes(offset, size), dst.bytes(0, size), "communicator " + comm + ", round "
                        + round + ", " + size + " bytes");
                for (int i = size; i < BUFFER + CANARY; i += 4099) {
                    assertEquals(0x5A, dst.get(i), "byte " + i + " past the message");
                }
                rounds++;
            }
            srcMr.close();
            dstMr.close();
            return rounds;
        }
    }

    private void refusesASendTooLarge(SendComm send, RecvComm recv) throws Exception {
        try (HostBuffer src = new HostBuffer(100_000).pattern(9);
                HostBuffer dst = new HostBuffer(50_000 + CANARY).fill((byte) 0x5A)) {
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            RecvRequest small = recv.irecv(1, new long[] {dst.address}, new long[] {50_000}, new int[] {1},
                    new MrHandle[] {dstMr});
            spin(4 * EndpointStep.QUIET_EVERY);
            SendRequest large = send.isend(src.address, 100_000, 1, srcMr);
            RdmaException sent = assertThrows(RdmaException.class, () -> await(large, null));
            assertEquals(ErrorCategory.INVALID_USAGE, sent.category(), sent.getMessage());
            RdmaException received = assertThrows(RdmaException.class, () -> await(small, null));
            assertEquals(ErrorCategory.INVALID_USAGE, received.category(), received.getMessage());
            for (int i = 0; i < dst.size; i++) {
                assertEquals(0x5A, dst.get(i), "byte " + i + " was written");
            }
            srcMr.close();
            dstMr.close();
        }
    }
}
