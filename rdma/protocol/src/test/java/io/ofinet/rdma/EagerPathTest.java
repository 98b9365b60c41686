package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.FlushRequest;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The eager path on the in-memory provider (docs/PROTOCOL.md, "Eager messages"): messages of up to
 * {@code eagerMaxSize} go out before their receive is posted, are held within the sender's credits,
 * and are matched by sequence number and tag; larger sends wait for their announcement.
 * Refusals are in {@link EagerRefusalTest}.
 */
@Timeout(120)
class EagerPathTest extends EagerFixture {
    @Test
    void sendsBeforeTheirReceivesAreHeldAndArriveWhenThoseArePosted() throws Exception {
        Pair p = connect(MemProvider.builder().domains(2).outOfOrderCompletions(7).build(), 2, "");
        Slabs s = new Slabs();
        long[] sizes = {0, 1, 64, 4096, 8191, 8192, 3, 0, 777, 8000};
        List<SendRequest> sends = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < sizes.length; i++) {
            sends.add(p.send().isend(s.src.address + offset, sizes[i], i, s.srcMr));
            offset += sizes[i];
        }
        for (SendRequest send : sends) {
            await(send, null); // done once out: nothing waits for the receiver
        }
        spin(20);
        assertEquals(sizes.length, p.recv().heldEagerMessages(), "every message held until its receive");
        s.dst.fill((byte) 0x5A);
        offset = 0;
        long dstOffset = 0;
        for (int i = 0; i < sizes.length; i++) {
            long[] got = new long[1];
            RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address + dstOffset}, new long[] {sizes[i] + 16},
                    new int[] {i}, new MrHandle[] {s.dstMr});
            await(r, got);
            assertEquals(sizes[i], got[0], "size of message " + i);
            assertArrayEquals(s.src.bytes(offset, (int) sizes[i]), s.dst.bytes(dstOffset, (int) sizes[i]),
                    "message " + i);
            assertEquals(0x5A, s.dst.get(dstOffset + sizes[i]), "nothing written past message " + i);
            offset += sizes[i];
            dstOffset += sizes[i] + 16;
        }
        assertEquals(0, p.recv().heldEagerMessages());
    }

    /**
     * 3 × 1024 + 17 messages of eager and rendezvous sizes in random order, the receives posted
     * sometimes before and sometimes after their sends, over two rails that complete out of order:
     * the sequence numbers wrap three times and every byte lands where it should. Seeds 1 and 3 run
     * with endpoint-scoped registrations.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void sequenceWrapAroundWithEagerAndRendezvousInRandomOrder(long seed) throws Exception {
        // Odd seeds with the strict provider's FI_MR_ENDPOINT: every eager buffer is used only
        // through the rail endpoint it is bound to.
        MemProvider.Builder builder = MemProvider.builder().domains(2).outOfOrderCompletions(seed);
        Pair p = connect(seed % 2 == 1 ? builder.endpointMr().build() : builder.build(), 2,
                "\"minStripeSize\": 8192");
        Slabs s = new Slabs();
        Random random = new Random(seed);
        long[] choices = {0, 1, 100, 4096, 8191, 8192, 8193, 20000, 65536};
        int messages = 3 * 1024 + 17;
        ArrayDeque<long[]> pending = new ArrayDeque<>(); // {size, srcOffset, dstOffset, capacity}
        ArrayDeque<RecvRequest> receives = new ArrayDeque<>();
        ArrayDeque<SendRequest> sends = new ArrayDeque<>();
        int sent = 0;
        while (sent < messages) {
            int batch = Math.min(messages - sent, 1 + random.nextInt(4));
            boolean receivesFirst = random.nextBoolean();
            long dstOffset = 0;
            List<long[]> plan = new ArrayList<>();
            for (int k = 0; k < batch; k++) {
                long size = choices[random.nextInt(choices.length)];
                long capacity = size + random.nextInt(3) * 8;
                long srcOffset = random.nextInt((int) (SLAB - size));
                plan.add(new long[] {size, srcOffset, dstOffset, capacity});
                dstOffset += capacity;
            }
            s.dst.fill((byte) 0x5A);
            for (int phase = 0; phase < 2; phase++) {
                for (long[] m : plan) {
                    if ((phase == 0) == receivesFirst) {
                        receives.add(p.recv().irecv(1, new long[] {s.dst.address + m[2]}, new long[] {m[3]},
                                new int[] {(int) m[0]}, new MrHandle[] {s.dstMr}));
                    } else {
                        sends.add(p.send().isend(s.src.address + m[1], m[0], (int) m[0], s.srcMr));
                    }
                }
                spin(random.nextInt(3));
            }
            for (long[] m : plan) {
                long[] got = new long[1];
                await(sends.poll(), null);
                await(receives.poll(), got);
                assertEquals(m[0], got[0], "size of message " + sent);
                assertArrayEquals(s.src.bytes(m[1], (int) m[0]), s.dst.bytes(m[2], (int) m[0]), "message " + sent);
                sent++;
            }
            assertEquals(0x5A, s.dst.get(dstOffset), "nothing past the batch ending at message " + sent);
        }
    }

    /**
     * A grouped receive with a repeated tag and one large buffer (so it sends an announcement),
     * and one of small buffers only (so it sends none): both sides give the sends of the same tag
     * the buffers in order, whether the sends come first or the receive does.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void groupedReceivesMatchEagerAndRendezvousSendsByTag(boolean sendsFirst) throws Exception {
        Pair p = connect(MemProvider.builder().domains(2).outOfOrderCompletions(5).build(), 2, "");
        Slabs s = new Slabs();
        int[][] tags = {{7, 5, 7}, {3, 3, 9, 3}};
        long[][] capacities = {{64, 40000, 64}, {100, 100, 100, 100}};
        int[][] sendTags = {{7, 5, 7}, {9, 3, 3, 3}};
        long[][] sendSizes = {{32, 40000, 16}, {10, 20, 30, 40}};
        // Where each send lands: the buffer of its tag not yet taken, in send order.
        int[][] lands = {{0, 1, 2}, {2, 0, 1, 3}};
        long[] spacing = {40960, 200};
        for (int g = 0; g < tags.length; g++) {
            int n = tags[g].length;
            s.dst.fill((byte) 0x5A);
            long[] addresses = new long[n];
            MrHandle[] mrs = new MrHandle[n];
            for (int i = 0; i < n; i++) {
                addresses[i] = s.dst.address + i * spacing[g];
                mrs[i] = s.dstMr;
            }
            List<SendRequest> sends = new ArrayList<>();
            RecvRequest r = null;
            if (!sendsFirst) {
                r = p.recv().irecv(n, addresses, capacities[g], tags[g], mrs);
                spin(10);
            }
            for (int k = 0; k < n; k++) {
                sends.add(p.send().isend(s.src.address + k * 1000L, sendSizes[g][k], sendTags[g][k], s.srcMr));
            }
            spin(10);
            if (sendsFirst) {
                r = p.recv().irecv(n, addresses, capacities[g], tags[g], mrs);
            }
            long[] got = new long[n];
            for (SendRequest send : sends) {
                await(send, null);
            }
            await(r, got);
            for (int k = 0; k < n; k++) {
                int i = lands[g][k];
                assertEquals(sendSizes[g][k], got[i], "group " + g + " buffer " + i);
                assertArrayEquals(s.src.bytes(k * 1000L, (int) sendSizes[g][k]),
                        s.dst.bytes(i * spacing[g], (int) sendSizes[g][k]), "group " + g + " send " + k);
            }
        }
    }

    /**
     * A send larger than {@code eagerMaxSize} posted before its receive waits {@code rtsDelayUs}
     * for the receive's announcement before it sends its request to send: within the delay the receiver
     * holds nothing, and the send goes on the announcement. With a delay of 0 the request to send goes at
     * once and is held until the receive is posted.
     */
    @ParameterizedTest
    @ValueSource(longs = {60_000_000, 0})
    void aLargeSendBeforeItsReceiveSendsNoRtsWithinTheDelay(long delayUs) throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "\"rtsDelayUs\": " + delayUs);
        Slabs s = new Slabs();
        s.dst.fill((byte) 0x5A);
        SendRequest send = p.send().isend(s.src.address, 20000, 3, s.srcMr);
        spin(20);
        assertEquals(delayUs == 0 ? 1 : 0, p.recv().heldEagerMessages(), "requests to send held by the receiver");
        long[] got = new long[1];
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {30000}, new int[] {3},
                new MrHandle[] {s.dstMr});
        await(send, null);
        await(r, got);
        assertEquals(20000, got[0]);
        assertArrayEquals(s.src.bytes(0, 20000), s.dst.bytes(0, 20000));
        assertEquals(0x5A, s.dst.get(20000), "nothing written past the message");
        assertEquals(0, p.recv().heldEagerMessages());
    }

    /**
     * A large send whose announcement arrived while its endpoint was not progressing goes out at
     * the first step after {@code isend}, which posts and returns: the send waits for its
     * announcement, so that step reads the control rails (which a step otherwise reads only every
     * 16th time).
     */
    @Test
    void aLargeSendMeetsItsAnnouncementAtTheFirstStepAfterIsend() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        for (int i = 0; i < 20; i++) {
            RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {20000}, new int[] {i},
                    new MrHandle[] {s.dstMr});
            long before = a.pools.counts.writesPosted() + a.pools.counts.writesNoticed();
            SendRequest send = p.send().isend(s.src.address, 20000, i, s.srcMr);
            assertEquals(before, a.pools.counts.writesPosted() + a.pools.counts.writesNoticed(),
                    "send " + i + ": isend read no queue, so it knows of no announcement yet");
            send.test(null);
            assertEquals(before + 1, a.pools.counts.writesPosted() + a.pools.counts.writesNoticed(),
                    "send " + i + ": its write went out in the first step after isend");
            await(send, null);
            await(r, null);
            assertArrayEquals(s.src.bytes(0, 20000), s.dst.bytes(0, 20000));
        }
    }

    /**
     * A sender whose receives are not posted holds at most its credits of the receiver's eager
     * buffers; the rails stay posted, another communicator of the same endpoints moves on, and the
     * first one's messages all arrive, in order, once its receives come.
     */
    @Test
    void oneCommunicatorCannotTakeTheEndpointsEagerBuffers() throws Exception {
        Pair greedy = connect(MemProvider.builder().domains(1).build(), 1, "");
        Pair other = pair(b.listen());
        Slabs s = new Slabs();
        int messages = 200;
        List<SendRequest> sends = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            sends.add(greedy.send().isend(s.src.address + i * 64L, 64, 4, s.srcMr));
        }
        spin(50);
        assertEquals(Limits.CREDITS, greedy.recv().heldEagerMessages(), "held: the sender's credits, no more");
        assertTrue(b.pools.eager.posted(0) >= 64, "receives still posted: " + b.pools.eager.posted(0));
        for (int i = 0; i < 100; i++) {
            RecvRequest r = other.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1},
                    new MrHandle[] {s.dstMr});
            SendRequest send = other.send().isend(s.src.address + i, 64, 1, s.srcMr);
            await(send, null);
            await(r, null);
            assertArrayEquals(s.src.bytes(i, 64), s.dst.bytes(0, 64));
        }
        for (int i = 0; i < messages; i++) {
            RecvRequest r = greedy.recv().irecv(1, new long[] {s.dst.address + i * 64L}, new long[] {64},
                    new int[] {4}, new MrHandle[] {s.dstMr});
            await(r, null);
        }
        for (SendRequest send : sends) {
            await(send, null);
        }
        assertArrayEquals(s.src.bytes(0, messages * 64), s.dst.bytes(0, messages * 64), "every message, in order");
        assertFalse(greedy.recv().heldEagerMessages() > 0);
    }

    @Test
    void iflushAfterAnEagerReceiveCompletes() throws Exception {
        Pair p = connect(MemProvider.builder().domains(2).build(), 2, "");
        Slabs s = new Slabs();
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {256}, new int[] {1},
                new MrHandle[] {s.dstMr});
        await(p.send().isend(s.src.address, 256, 1, s.srcMr), null);
        await(r, null);
        FlushRequest f = p.recv().iflush(1, new long[] {s.dst.address}, new long[] {256}, new MrHandle[] {s.dstMr});
        assertNotNull(f);
        await(f, null);
        assertArrayEquals(s.src.bytes(0, 256), s.dst.bytes(0, 256));
    }
}
