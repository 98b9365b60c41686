package io.ofinet.tools.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.plugin.Handles;
import java.nio.ByteBuffer;
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
 * The tags a ring puts on its messages, over {@link LoopbackNet}: two ranks run more messages than
 * the ring has tags, and every tag posted stays within {@link Ring#TAGS}, so that a communicator
 * counts a bounded set of tags however long the ring runs. And the order of a drained window's
 * calls ({@link Ring#drain}), read from the wire's log.
 */
@Timeout(60)
class RingTest {
    @TempDir
    Path dir;

    @Test
    void pingpongsAndStreamsPastTheTagCycleStayWithinIt() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        int rounds = Ring.TAGS + 100;
        twoRanks(wire, (ring, rank) -> {
            ByteBuffer out = ByteBuffer.allocateDirect(8);
            ByteBuffer in = ByteBuffer.allocateDirect(8);
            Handles.MrHandle mr = ring.register(out);
            ring.pingpong(out, in, mr, rounds, rank == 0);
            ring.stream(out, mr, rounds, 16, rank == 0);
        });
        List<String> log = wire.log();
        int posts = 0;
        int highest = -1;
        for (String entry : log) {
            String[] words = entry.split(" ");
            if (words[1].equals("isend") || words[1].equals("irecv")) {
                posts++;
                highest = Math.max(highest, Integer.parseInt(words[2]));
            }
        }
        assertEquals(2 * 2 * rounds + 2 * rounds, posts, "each pingpong round posts a send and a receive per rank");
        assertEquals(Ring.TAGS - 1, highest, "the tags run through the whole cycle and no further");
        assertTrue(log.contains("r0 isend 0") && log.contains("r1 irecv 0"));
    }

    /**
     * ofinet-perf drained: each window is posted whole before any of it is tested, completes oldest
     * first on both ranks, and is closed by a 1-byte acknowledgement from the receiver, which the
     * sender had posted for before its window and awaits before it posts the next; a last window
     * shorter than the others when the count is not a multiple of the window.
     */
    @Test
    void aDrainedWindowIsPostedWholeCompletesOldestFirstAndIsAcknowledged() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        int count = 40;
        int window = 16;
        twoRanks(wire, (ring, rank) -> {
            ByteBuffer data = ByteBuffer.allocateDirect(4096);
            ByteBuffer ack = data.duplicate().position(4000).limit(4001).slice();
            Handles.MrHandle mr = ring.register(data);
            ring.drain(data.duplicate().limit(1024).slice(), ack, mr, count, window, rank == 0);
        });
        List<String> log = wire.log();
        int tag = 0;
        for (int n : new int[] {16, 16, 8}) {
            int ackTag = tag + n;
            List<String> sender = new ArrayList<>();
            sender.add("r0 irecv " + ackTag);
            for (int i = 0; i < n; i++) {
                sender.add("r0 isend " + (tag + i));
            }
            for (int i = 0; i < n; i++) {
                sender.add("r0 send " + (tag + i) + " done");
            }
            sender.add("r0 recv " + ackTag + " done");
            assertEquals(sender, ofRank(log, "r0 ", tag, ackTag), "the sender's window at tag " + tag);
            List<String> receiver = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                receiver.add("r1 irecv " + (tag + i));
            }
            for (int i = 0; i < n; i++) {
                receiver.add("r1 recv " + (tag + i) + " done");
            }
            receiver.add("r1 isend " + ackTag);
            receiver.add("r1 send " + ackTag + " done");
            assertEquals(receiver, ofRank(log, "r1 ", tag, ackTag), "the receiver's window at tag " + tag);
            assertEquals(1, wire.bytes("r1 isend " + ackTag), "the acknowledgement is one byte");
            assertEquals(1024, wire.bytes("r0 isend " + tag));
            // The next window is posted only after the acknowledgement arrived.
            int nextPost = log.indexOf("r0 isend " + (ackTag + 1));
            assertTrue(nextPost < 0 || nextPost > log.indexOf("r0 recv " + ackTag + " done"), log.toString());
            tag = ackTag + 1;
        }
    }

    /** One rank's entries with tags from {@code from} to {@code to}, in the log's order. */
    private static List<String> ofRank(List<String> log, String rank, int from, int to) {
        return log.stream().filter(e -> e.startsWith(rank)).filter(e -> {
            int t = Integer.parseInt(e.split(" ")[2]);
            return t >= from && t <= to;
        }).toList();
    }

    /** What one rank of two does with its ring. */
    @FunctionalInterface
    private interface RankWork {
        void run(Ring ring, int rank) throws Exception;
    }

    /** Runs {@code work} on two ranks, a thread each, over {@code wire}, and waits for both. */
    private void twoRanks(LoopbackNet.Wire wire, RankWork work) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                ranks.add(threads.submit(() -> {
                    try (Ring ring = new Ring(new LoopbackNet(wire, rank), new Rendezvous(dir, rank, 2), 0)) {
                        work.run(ring, rank);
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
    }
}
