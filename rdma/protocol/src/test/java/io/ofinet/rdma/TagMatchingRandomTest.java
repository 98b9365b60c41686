package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random grouped receives and sends on one connection of the in-memory provider, checked against
 * {@link TagMatchingModel}: groupings of 1 to 8 buffers, tags with repeats, sends posted in any order
 * that keeps each tag's, receives posted at random moments (some only once the earlier ones
 * completed), sizes on both sides of the eager limit, completions delivered out of order. Every
 * size and byte is checked, and a scenario in which nothing completes for {@link #STALL_NANOS}
 * fails, naming its seed ({@code -Dofinet.tagSeeds=N} runs more).
 */
class TagMatchingRandomTest extends TwoHostFixture {
    private static final int SEEDS = Integer.getInteger("ofinet.tagSeeds", 10_000);
    private static final long STALL_NANOS = 20_000_000_000L;
    private static final int EAGER_MAX = 8192;
    private static final int LARGE_MAX = 40_000;
    private static final int SLAB = 8 * 8 * LARGE_MAX;

    private HostBuffer src;
    private HostBuffer dst;
    private MrHandle srcMr;
    private MrHandle dstMr;

    @Test
    void everySendFillsTheBufferTheRuleGivesIt() throws Exception {
        ConnectedPair pair = openAndConnect(MemProvider.builder().domains(2).outOfOrderCompletions(7).build(),
                Layouts.mem(2, ""));
        src = buffer(SLAB).pattern(3);
        dst = buffer(SLAB);
        srcMr = register(a, deviceA, src);
        dstMr = register(b, deviceB, dst);
        for (int seed = 0; seed < SEEDS; seed++) {
            try {
                new Scenario(seed).run(pair.send(), pair.recv());
            } catch (Exception e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    /** One seed's receives and sends, and how they are posted and tested. */
    private final class Scenario {
        final int seed;
        final SplittableRandom random;
        final List<int[]> receiveTags = new ArrayList<>();
        final List<long[]> capacities = new ArrayList<>();
        final List<Boolean> gated = new ArrayList<>();
        /** Per send, in posting order: its tag, size and source offset. */
        final int[] sendTags;
        final long[] sendSizes;
        final long[] sendOffsets;

        Scenario(int seed) {
            this.seed = seed;
            this.random = new SplittableRandom(seed);
            int receives = 1 + random.nextInt(5);
            List<int[]> buffers = new ArrayList<>(); // {receive, buffer}, in the rule's order per tag
            for (int r = 0; r < receives; r++) {
                int n = 1 + random.nextInt(8);
                int[] tags = new int[n];
                long[] sizes = new long[n];
                for (int i = 0; i < n; i++) {
                    tags[i] = random.nextInt(4);
                    sizes[i] = random.nextBoolean() ? 1 + random.nextInt(EAGER_MAX) : EAGER_MAX + 1 + random.nextInt(LARGE_MAX - EAGER_MAX);
                    buffers.add(new int[] {r, i});
                }
                receiveTags.add(tags);
                capacities.add(sizes);
                gated.add(r > 0 && random.nextInt(3) == 0);
            }
            // The sends: one per buffer, in an order that keeps each tag's (so that the rule gives
            // each the buffer it was made for), chosen at random among the tags' heads.
            List<List<int[]>> byTag = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                byTag.add(new ArrayList<>());
            }
            for (int[] buffer : buffers) {
                byTag.get(receiveTags.get(buffer[0])[buffer[1]]).add(buffer);
            }
            sendTags = new int[buffers.size()];
            sendSizes = new long[buffers.size()];
            sendOffsets = new long[buffers.size()];
            long offset = 0;
            for (int s = 0; s < sendTags.length; s++) {
                int t;
                do {
                    t = random.nextInt(4);
                } while (byTag.get(t).isEmpty());
                int[] buffer = byTag.get(t).remove(0);
                long capacity = capacities.get(buffer[0])[buffer[1]];
                sendTags[s] = t;
                sendSizes[s] = random.nextInt(8) == 0 ? 0 : 1 + random.nextLong(capacity);
                sendOffsets[s] = offset;
                offset += sendSizes[s];
            }
        }

        void run(SendComm send, RecvComm recv) throws Exception {
            int[][] expected = TagMatchingModel.match(receiveTags, sendTags);
            int receives = receiveTags.size();
            RecvRequest[] posted = new RecvRequest[receives];
            long[] dstOffsets = new long[receives];
            long[][] received = new long[receives][];
            SendRequest[] sent = new SendRequest[sendTags.length];
            boolean[] sendDone = new boolean[sendTags.length];
            int nextRecv = 0;
            int nextSend = 0;
            int recvsDone = 0;
            int sendsDone = 0;
            long dstOffset = 0;
            long lastDone = System.nanoTime();
            while (recvsDone < receives || sendsDone < sendTags.length) {
                switch (random.nextInt(4)) {
                    case 0 -> {
                        if (nextRecv < receives && (!gated.get(nextRecv) || recvsDone == nextRecv)) {
                            long[] sizes = capacities.get(nextRecv);
                            long[] addresses = new long[sizes.length];
                            MrHandle[] mrs = new MrHandle[sizes.length];
                            dstOffsets[nextRecv] = dstOffset;
                            for (int i = 0; i < sizes.length; i++) {
                                addresses[i] = dst.address + dstOffset;
                                mrs[i] = dstMr;
                                dstOffset += sizes[i];
                            }
                            posted[nextRecv] = recv.irecv(sizes.length, addresses, sizes, receiveTags.get(nextRecv), mrs);
                            if (posted[nextRecv] != null) {
                                nextRecv++;
                            }
                        }
                    }
                    case 1 -> {
                        if (nextSend < sendTags.length) {
                            sent[nextSend] = send.isend(src.address + sendOffsets[nextSend], sendSizes[nextSend],
                                    sendTags[nextSend], srcMr);
                            if (sent[nextSend] != null) {
                                nextSend++;
                            }
                        }
                    }
                    case 2 -> {
                        // Oldest first, as NCCL tests them.
                        if (recvsDone < nextRecv) {
                            long[] sizes = new long[8];
                            if (posted[recvsDone].test(sizes)) {
                                received[recvsDone] = sizes;
                                recvsDone++;
                                lastDone = System.nanoTime();
                            }
                        }
                        for (int s = 0; s < nextSend; s++) {
                            if (!sendDone[s]) {
                                if (sent[s].test(null)) {
                                    sendDone[s] = true;
                                    sendsDone++;
                                    lastDone = System.nanoTime();
                                }
                                break;
                            }
                        }
                    }
                    default -> (random.nextBoolean() ? a : b).progress();
                }
                if (System.nanoTime() - lastDone > STALL_NANOS) {
                    throw new AssertionError("seed " + seed + " stalled: receives " + recvsDone + " of " + receives
                            + " done (" + nextRecv + " posted), sends " + sendsDone + " of " + sendTags.length + " done ("
                            + nextSend + " posted)");
                }
            }
            for (int s = 0; s < sendTags.length; s++) {
                int r = expected[s][0];
                int i = expected[s][1];
                assertEquals(sendSizes[s], received[r][i], "seed " + seed + ": the size of send " + s + " (tag "
                        + sendTags[s] + ") in receive " + r + " buffer " + i);
                long at = dstOffsets[r];
                for (int k = 0; k < i; k++) {
                    at += capacities.get(r)[k];
                }
                assertArrayEquals(src.bytes(sendOffsets[s], (int) sendSizes[s]), dst.bytes(at, (int) sendSizes[s]),
                        "seed " + seed + ": the bytes of send " + s + " (tag " + sendTags[s] + ") in receive " + r
                                + " buffer " + i);
            }
        }
    }
}
