package io.ofinet.tools.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.plugin.Handles;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order in which the pipelined allreduce posts, over {@link LoopbackNet}: ranks are threads, and
 * a send completes only once its receive is posted and one side has tested. The results are checked
 * on every rank. Two ranks take the ring here too: the exchange ({@link ExchangeAllreduceTest}) is off.
 */
@Timeout(60)
class PipelinedAllreduceTest {
    private static final int COUNT = 1000;

    @TempDir
    Path dir;

    /** The allgather's receive, and its announcement, go out before the sender needs them. */
    @Test
    void onTwoRanksTheAllgatherReceiveIsPostedBeforeTheReduceScatterSendIsDone() throws Exception {
        List<String> log = allreduce(2, PipelinedAllreduce.CHUNK_BYTES);
        for (int r = 0; r < 2; r++) {
            int posted = indexOf(log, "r" + r + " irecv 1");
            int sent = indexOf(log, "r" + r + " send 0 done");
            assertTrue(posted < sent, "rank " + r + ": " + log);
        }
    }

    /**
     * Receive k goes out only after send k − 1, so that announcing receives ahead never delays the
     * write the peer's announcement lets go; with blocks whole and in chunks, on two and three ranks.
     */
    @Test
    void aReceiveIsPostedOnlyAfterTheSendBeforeIt() throws Exception {
        for (int ranks : new int[] {2, 3}) {
            for (long chunkBytes : new long[] {PipelinedAllreduce.CHUNK_BYTES, 256}) {
                List<String> log = allreduce(ranks, chunkBytes);
                int chunks = (int) Math.min(PipelinedAllreduce.MAX_CHUNKS,
                        (Collectives.blockStartOf(COUNT, ranks, 1) * 4 + chunkBytes - 1) / chunkBytes);
                for (int r = 0; r < ranks; r++) {
                    for (int k = 1; k < 2 * (ranks - 1) * chunks; k++) {
                        int send = indexOf(log, "r" + r + " isend " + (k - 1));
                        int posted = indexOf(log, "r" + r + " irecv " + k);
                        assertTrue(send < posted, ranks + " ranks, " + chunkBytes + "-byte chunks, rank " + r
                                + ", receive " + k + ": " + log);
                    }
                }
            }
        }
    }

    /**
     * A reduce-scatter receive into tmp waits for the reduction of the chunk received there before,
     * with blocks whole and cut into more chunks than the window holds.
     */
    @Test
    void aReceiveIntoTmpWaitsForTheReductionOfTheChunkBeforeIt() throws Exception {
        for (long chunkBytes : new long[] {PipelinedAllreduce.CHUNK_BYTES, 256}) {
            int ranks = 4;
            List<String> log = allreduce(ranks, chunkBytes);
            int chunks = (int) Math.min(PipelinedAllreduce.MAX_CHUNKS,
                    (Collectives.blockStartOf(COUNT, ranks, 1) * 4 + chunkBytes - 1) / chunkBytes);
            for (int r = 0; r < ranks; r++) {
                for (int k = chunks; k < (ranks - 1) * chunks; k++) {
                    int posted = indexOf(log, "r" + r + " irecv " + k);
                    int before = indexOf(log, "r" + r + " recv " + (k - chunks) + " done");
                    assertTrue(before < posted,
                            chunkBytes + "-byte chunks, rank " + r + ", receive " + k + ": " + log);
                }
            }
        }
    }

    /**
     * With a head, each step sends the block's first bytes on their own, then the rest; the receive
     * of the rest goes out before the head's send, and the sums come out right; on two to four ranks,
     * blocks whole and in chunks.
     */
    @Test
    void aHeadGoesFirstOnItsOwnAndTheReceiveAfterItBeforeItsSend() throws Exception {
        int headBytes = 64;
        for (int ranks : new int[] {2, 3, 4}) {
            for (long chunkBytes : new long[] {PipelinedAllreduce.CHUNK_BYTES, 256}) {
                LoopbackNet.Wire wire = new LoopbackNet.Wire();
                List<String> log = allreduce(wire, ranks, chunkBytes, headBytes);
                long block = Collectives.blockStartOf(COUNT, ranks, 1) * 4;
                int chunks = (int) Math.min(PipelinedAllreduce.MAX_CHUNKS,
                        (block - headBytes + chunkBytes - 1) / chunkBytes);
                int parts = chunks + 1;
                String where = ranks + " ranks, " + chunkBytes + "-byte chunks";
                for (int r = 0; r < ranks; r++) {
                    for (int s = 0; s < 2 * (ranks - 1); s++) {
                        int k = s * parts;
                        String at = where + ", rank " + r + ", step " + s;
                        assertEquals(headBytes, wire.bytes("r" + r + " isend " + k), at);
                        assertEquals(headBytes, wire.bytes("r" + r + " irecv " + k), at);
                        assertTrue(wire.bytes("r" + r + " isend " + (k + 1)) > headBytes, at);
                        assertTrue(indexOf(log, "r" + r + " irecv " + (k + 1)) < indexOf(log, "r" + r + " isend " + k),
                                at + ": " + log);
                    }
                }
            }
        }
    }

    /** Blocks no larger than {@link PipelinedAllreduce#HEAD_SPAN} heads are sent without one. */
    @Test
    void aSmallBlockHasNoHead() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        long block = Collectives.blockStartOf(COUNT, 2, 1) * 4;
        allreduce(wire, 2, PipelinedAllreduce.CHUNK_BYTES, block / PipelinedAllreduce.HEAD_SPAN / 4 * 4 + 4);
        assertEquals((int) block, wire.bytes("r0 isend 0"));
        assertEquals(null, wire.bytes("r0 isend 2"), "two steps of one message each");
    }

    /** One allreduce of {@link #COUNT} floats on {@code ranks} threads: checks every rank's sums, returns the log. */
    private List<String> allreduce(int ranks, long chunkBytes) throws Exception {
        return allreduce(new LoopbackNet.Wire(), ranks, chunkBytes, 0);
    }

    private List<String> allreduce(LoopbackNet.Wire wire, int ranks, long chunkBytes, long headBytes) throws Exception {
        Path rendezvous = dir.resolve(ranks + "-" + chunkBytes + "-" + headBytes);
        ExecutorService threads = Executors.newFixedThreadPool(ranks);
        try {
            List<Future<ByteBuffer>> results = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                results.add(threads.submit(() -> {
                    LoopbackNet net = new LoopbackNet(wire, rank);
                    try (Ring ring = new Ring(net, new Rendezvous(rendezvous, rank, ranks), 0)) {
                        ByteBuffer data = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.nativeOrder());
                        for (int i = 0; i < COUNT; i++) {
                            data.putFloat(i * 4, rank * 100 + i % 7);
                        }
                        ByteBuffer tmp = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.nativeOrder());
                        Handles.MrHandle mr = ring.register(data);
                        new Collectives(ring, chunkBytes, headBytes, 0).allreduce(data, COUNT, tmp, mr);
                        return data;
                    }
                }));
            }
            for (int r = 0; r < ranks; r++) {
                ByteBuffer data = results.get(r).get();
                for (int i = 0; i < COUNT; i++) {
                    assertEquals(100f * ranks * (ranks - 1) / 2 + ranks * (i % 7), data.getFloat(i * 4),
                            ranks + " ranks, " + chunkBytes + "-byte chunks: rank " + r + ", element " + i);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        return wire.log();
    }

    private static int indexOf(List<String> log, String entry) {
        int i = log.indexOf(entry);
        assertTrue(i >= 0, "no \"" + entry + "\" in " + log);
        return i;
    }
}
