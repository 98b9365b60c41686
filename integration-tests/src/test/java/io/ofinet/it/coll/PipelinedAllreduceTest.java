package io.ofinet.it.coll;

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
 * on every rank.
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

    /** One allreduce of {@link #COUNT} floats on {@code ranks} threads: checks every rank's sums, returns the log. */
    private List<String> allreduce(int ranks, long chunkBytes) throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        Path rendezvous = dir.resolve(ranks + "-" + chunkBytes);
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
                        new Collectives(ring, chunkBytes).allreduce(data, COUNT, tmp, mr);
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
