package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Heads on the in-memory provider (docs/PROTOCOL.md, "Heads"): a send larger than {@code
 * eagerMaxSize} that finds no announcement and no send behind it sends its first {@code
 * eagerMaxSize} bytes at once; the receive puts them together with the writes of the rest, holds a
 * head that came before it, and refuses one that does not fit without writing anything.
 */
@Timeout(120)
class HeadPathTest extends TwoHostFixture {
    private static final int CANARY = 64;
    private static final int SLAB = 320 * 1024;
    private static final String HEADS_ON = "\"eagerHead\": \"on\", \"eagerHeadMinSize\": 16384,"
            + " \"rtsDelayUs\": 60000000";

    private SendComm send;
    private RecvComm recv;
    private HostBuffer src;
    private HostBuffer dst;
    private MrHandle srcMr;
    private MrHandle dstMr;

    private void connect(MemProvider memProvider, int rails, String members) throws Exception {
        ConnectedPair comms = openAndConnect(memProvider, Layouts.mem(rails, members));
        send = comms.send();
        recv = comms.recv();
        src = buffer(SLAB).pattern(17);
        dst = buffer(SLAB + CANARY);
        srcMr = register(a, deviceA, src);
        dstMr = register(b, deviceB, dst);
    }

    private RecvRequest irecv(long capacity, int tag) throws Exception {
        return recv.irecv(1, new long[] {dst.address}, new long[] {capacity}, new int[] {tag},
                new MrHandle[] {dstMr});
    }

    /**
     * With heads on, a large send posted before its receive leaves its head held at the receiver
     * (with them off, nothing: the RTS delay here is a minute); once the receive is posted,
     * the head and the written rest make up the message, and nothing lands past it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"on", "off"})
    void aHeadWaitsForItsReceiveAndTheRestIsWrittenPastIt(String heads) throws Exception {
        connect(MemProvider.builder().domains(2).outOfOrderCompletions(3).build(), 2,
                "\"eagerHead\": \"" + heads + "\", \"eagerHeadMinSize\": 16384, \"rtsDelayUs\": 60000000,"
                        + " \"minStripeSize\": 8192");
        dst.fill((byte) 0x5A);
        long before = a.pools.counts.headsSent();
        SendRequest s = send.isend(src.address + 5, 100_000, 4, srcMr);
        spin(20);
        boolean on = heads.equals("on");
        assertEquals(on ? 1 : 0, recv.heldEagerMessages(), "heads held by the receiver");
        assertEquals(on ? 1 : 0, a.pools.counts.headsSent() - before, "heads sent");
        long[] got = new long[1];
        RecvRequest r = irecv(120_000, 4);
        await(s, null);
        await(r, got);
        assertEquals(100_000, got[0]);
        assertArrayEquals(src.bytes(5, 100_000), dst.bytes(0, 100_000));
        assertEquals(0x5A, dst.get(100_000), "nothing written past the message");
        assertEquals(0, recv.heldEagerMessages());
    }

    /**
     * Only a send with no send behind it sends a head: of a burst of large sends before their
     * receives, the first does (it is alone when posted), and the others wait behind it for their
     * announcements. A send below {@code eagerHeadMinSize} sends none.
     */
    @Test
    void aBurstOfSendsSendsOneHead() throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, HEADS_ON);
        SendRequest[] sends = new SendRequest[4];
        for (int i = 0; i < sends.length; i++) {
            sends[i] = send.isend(src.address + i * 30_000L, 30_000, i, srcMr);
        }
        spin(10);
        assertEquals(1, a.pools.counts.headsSent(), "heads of the burst");
        RecvRequest[] recvs = new RecvRequest[sends.length];
        for (int i = 0; i < sends.length; i++) {
            recvs[i] = recv.irecv(1, new long[] {dst.address + i * 30_000L}, new long[] {30_000}, new int[] {i},
                    new MrHandle[] {dstMr});
        }
        for (int i = 0; i < sends.length; i++) {
            await(sends[i], null);
            await(recvs[i], null);
        }
        assertArrayEquals(src.bytes(0, 120_000), dst.bytes(0, 120_000));
        SendRequest alone = send.isend(src.address, 30_000, 9, srcMr);
        spin(5);
        assertEquals(2, a.pools.counts.headsSent(), "a send alone sends its head");
        RecvRequest r = irecv(30_000, 9);
        await(alone, null);
        await(r, null);
        SendRequest small = send.isend(src.address, 16_383, 10, srcMr);
        spin(5);
        assertEquals(2, a.pools.counts.headsSent(), "a send below eagerHeadMinSize sends none");
        RecvRequest r2 = irecv(30_000, 10);
        await(small, null);
        await(r2, null);
        assertArrayEquals(src.bytes(0, 16_383), dst.bytes(0, 16_383));
    }

    /**
     * A send whose head went out and whose announcement came waits as it was while no operation is
     * free for its writes: once operations are free again, it writes into the buffer the receiver
     * gave its head, and the message arrives intact.
     */
    @Test
    void aHeadsWritesWaitForOperationsAndKeepTheirBuffer() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, HEADS_ON + ", \"minStripeSize\": 8192");
        SendRequest s = send.isend(src.address, 30_000, 7, srcMr);
        spin(5);
        assertEquals(1, a.pools.counts.headsSent(), "the head went out");
        List<RmaOp> taken = new ArrayList<>();
        RecvRequest r = irecv(30_000, 7);
        for (int i = 0; i < 20; i++) {
            // Every free operation taken before each step: the one a step frees is short of the
            // writes' two stripes.
            for (RmaOp op = a.pools.ops.acquire(); op != null; op = a.pools.ops.acquire()) {
                taken.add(op);
            }
            b.progress();
            a.progress();
        }
        assertEquals(SendRequest.State.RTS_SENT, s.state(), "the announcement came; the writes wait");
        for (RmaOp op : taken) {
            a.pools.ops.release(op);
        }
        long[] got = new long[1];
        await(s, null);
        await(r, got);
        assertEquals(30_000, got[0]);
        assertArrayEquals(src.bytes(0, 30_000), dst.bytes(0, 30_000));
    }

    /**
     * A head that does not fit its receive's buffer — one that sends no announcement (its buffer
     * takes eager messages whole), or a larger one — fails both sides at once, not after the
     * RTS delay, and nothing is written. Another communicator of the same endpoints goes on.
     */
    @ParameterizedTest
    @ValueSource(longs = {4096, 50_000})
    void aHeadTooLargeForItsReceiveIsRefusedAndWritesNothing(long capacity) throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, HEADS_ON);
        ConnectedPair other = ConnectionTest.establish(a, b, b.listen());
        dst.fill((byte) 0x5A);
        RecvRequest r = irecv(capacity, 1);
        spin(5);
        SendRequest s = send.isend(src.address, 100_000, 1, srcMr);
        RdmaException sent = assertThrows(RdmaException.class, () -> await(s, null));
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category());
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, null));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        for (int i = 0; i < capacity + CANARY; i++) {
            assertEquals(0x5A, dst.get(i), "byte " + i + " was written");
        }
        RecvRequest r2 = other.recv().irecv(1, new long[] {dst.address + 200_000}, new long[] {100_000},
                new int[] {2}, new MrHandle[] {dstMr});
        SendRequest s2 = other.send().isend(src.address, 100_000, 2, srcMr);
        await(s2, null);
        await(r2, null);
        assertArrayEquals(src.bytes(0, 100_000), dst.bytes(200_000, 100_000));
    }

    /**
     * 600 messages of eager and larger sizes, each alone or in a burst, the receives posted before
     * or after, over two rails that complete out of order: heads go out, and every byte lands where
     * it should.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void headsEagerAndWrittenSendsInRandomOrder(long seed) throws Exception {
        MemProvider.Builder builder = MemProvider.builder().domains(2).outOfOrderCompletions(seed);
        connect(seed == 1 ? builder.endpointMr().build() : builder.build(), 2,
                "\"eagerHead\": \"on\", \"eagerHeadMinSize\": 16384, \"minStripeSize\": 8192");
        Random random = new Random(seed);
        long[] choices = {0, 100, 8192, 8193, 20000, 65536, 150_000};
        int messages = 600;
        for (int sent = 0; sent < messages; ) {
            int batch = Math.min(messages - sent, random.nextBoolean() ? 1 : 1 + random.nextInt(3));
            boolean receivesFirst = random.nextBoolean();
            long dstOffset = 0;
            dst.fill((byte) 0x5A);
            RecvRequest[] recvs = new RecvRequest[batch];
            SendRequest[] sends = new SendRequest[batch];
            long[][] m = new long[batch][];
            for (int k = 0; k < batch; k++) {
                long size = choices[random.nextInt(choices.length)];
                m[k] = new long[] {size, random.nextInt((int) (SLAB - size)), dstOffset};
                dstOffset += size + 8;
            }
            for (int phase = 0; phase < 2; phase++) {
                for (int k = 0; k < batch; k++) {
                    if ((phase == 0) == receivesFirst) {
                        recvs[k] = recv.irecv(1, new long[] {dst.address + m[k][2]}, new long[] {m[k][0] + 8},
                                new int[] {k}, new MrHandle[] {dstMr});
                    } else {
                        sends[k] = send.isend(src.address + m[k][1], m[k][0], k, srcMr);
                    }
                }
                spin(random.nextInt(3));
            }
            for (int k = 0; k < batch; k++) {
                long[] got = new long[1];
                await(sends[k], null);
                await(recvs[k], got);
                assertEquals(m[k][0], got[0], "size of message " + (sent + k));
                assertArrayEquals(src.bytes(m[k][1], (int) m[k][0]), dst.bytes(m[k][2], (int) m[k][0]),
                        "message " + (sent + k));
                assertEquals(0x5A, dst.get(m[k][2] + m[k][0]), "nothing past message " + (sent + k));
            }
            sent += batch;
        }
        assertTrue(a.pools.counts.headsSent() > 20, "heads sent: " + a.pools.counts.headsSent());
    }
}
