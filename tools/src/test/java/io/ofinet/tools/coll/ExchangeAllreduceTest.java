package io.ofinet.tools.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.plugin.Handles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-rank allreduce in one exchange ({@link Collectives#allreduce}), over {@link LoopbackNet}
 * (ranks are threads; a matched pair completes, and its bytes are copied, at the first test of
 * either): which allreduces take it, the order of its posts, and the sums on both ranks.
 */
@Timeout(60)
class ExchangeAllreduceTest {
    @TempDir
    Path dir;

    private int runs;
    /** Rank 0's {@link Collectives#allreduceWay()} in the last run. */
    private volatile String way;

    /**
     * Every rank's sums are right, run after run. A rank that summed into its buffer as soon as its
     * receive completed, before its send had, would send the sum instead of its own values whenever
     * the peer's receive is copied late.
     */
    @Test
    void bothRanksEndWithTheSumsRunAfterRun() throws Exception {
        for (int count : new int[] {0, 1, 7, 1000, 4099}) {
            LoopbackNet.Wire wire = new LoopbackNet.Wire();
            allreduce(wire, count, Math.max(4, count * 4L), count * 4L, 50);
        }
    }

    /** One message each way carries the whole buffer, and each rank's receive goes out before its send. */
    @Test
    void oneMessageEachWayItsReceiveFirst() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        List<String> log = allreduce(wire, 1000, Collectives.EXCHANGE_MAX_BYTES, 4000, 1);
        for (int r = 0; r < 2; r++) {
            assertEquals(4000, wire.bytes("r" + r + " isend 0"), log.toString());
            assertEquals(4000, wire.bytes("r" + r + " irecv 0"), log.toString());
            assertTrue(log.indexOf("r" + r + " irecv 0") < log.indexOf("r" + r + " isend 0"), log.toString());
        }
        assertEquals(4, log.stream().filter(e -> e.contains(" isend ") || e.contains(" irecv ")).count(),
                log.toString());
    }

    /** Above the exchange's largest size, and with the exchange off, two ranks take the ring: two steps. */
    @Test
    void largerAllreducesAndTheExchangeOffTakeTheRing() throws Exception {
        for (long exchangeMaxBytes : new long[] {3996, 0}) {
            LoopbackNet.Wire wire = new LoopbackNet.Wire();
            List<String> log = allreduce(wire, 1000, exchangeMaxBytes, 4000, 1);
            assertEquals(2000, wire.bytes("r0 isend 0"), log.toString());
            assertEquals(2000, wire.bytes("r0 isend 1"), log.toString());
        }
    }

    /** A tmp too small for the chosen way is refused before anything is posted, with both sizes named. */
    @Test
    void aTmpTooSmallIsRefusedBeforeAnyPost() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> allreduce(wire, 1000, Collectives.EXCHANGE_MAX_BYTES, 2000, 1));
        assertTrue(e.getCause() instanceof IllegalArgumentException, e.toString());
        assertEquals("the allreduce of 1000 elements on 2 ranks needs 4000 bytes of tmp, not 2000",
                e.getCause().getMessage());
        assertTrue(wire.log().isEmpty(), wire.log().toString());
    }

    /** The header line's name for the way; with the exchange off even an empty allreduce takes the ring. */
    @Test
    void theWayIsNamed() throws Exception {
        allreduce(new LoopbackNet.Wire(), 1, Collectives.EXCHANGE_MAX_BYTES, 4, 1);
        assertEquals("exchange up to 1048576 B, ring above", way);
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        allreduce(wire, 0, 0, 0, 1);
        assertEquals("ring", way);
        assertEquals(0, wire.bytes("r0 isend 1"), "the ring's second step: " + wire.log());
    }

    /**
     * {@code times} allreduces of {@code count} floats on two threads, each checked on both ranks;
     * returns the wire's log.
     */
    private List<String> allreduce(LoopbackNet.Wire wire, int count, long exchangeMaxBytes, long tmpBytes, int times)
            throws Exception {
        Path rendezvous = dir.resolve("run" + runs++);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                ranks.add(threads.submit(() -> {
                    LoopbackNet net = new LoopbackNet(wire, rank);
                    try (Ring ring = new Ring(net, new Rendezvous(rendezvous, rank, 2), 0)) {
                        Collectives coll = new Collectives(ring, PipelinedAllreduce.CHUNK_BYTES, 0, exchangeMaxBytes);
                        if (rank == 0) {
                            way = coll.allreduceWay();
                        }
                        ByteBuffer data = ByteBuffer.allocateDirect(count * 4 + 4).order(ByteOrder.nativeOrder());
                        ByteBuffer tmp = ByteBuffer.allocateDirect((int) tmpBytes).order(ByteOrder.nativeOrder());
                        Handles.MrHandle mr = ring.register(data);
                        for (int t = 0; t < times; t++) {
                            for (int i = 0; i < count; i++) {
                                data.putFloat(i * 4, rank * 100 + t + i % 7);
                            }
                            data.putFloat(count * 4, -1);
                            coll.allreduce(data, count, tmp, mr);
                            for (int i = 0; i < count; i++) {
                                assertEquals(100f + 2 * (t + i % 7), data.getFloat(i * 4),
                                        "rank " + rank + ", run " + t + ", element " + i + " of " + count);
                            }
                            assertEquals(-1f, data.getFloat(count * 4), "the float after the buffer");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> rank : ranks) {
                rank.get();
            }
        } finally {
            threads.shutdownNow();
        }
        return wire.log();
    }
}
