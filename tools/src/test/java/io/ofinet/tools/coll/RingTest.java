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
 * counts a bounded set of tags however long the ring runs.
 */
@Timeout(60)
class RingTest {
    @TempDir
    Path dir;

    @Test
    void pingpongsAndStreamsPastTheTagCycleStayWithinIt() throws Exception {
        LoopbackNet.Wire wire = new LoopbackNet.Wire();
        int rounds = Ring.TAGS + 100;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                ranks.add(threads.submit(() -> {
                    try (Ring ring = new Ring(new LoopbackNet(wire, rank), new Rendezvous(dir, rank, 2), 0)) {
                        ByteBuffer out = ByteBuffer.allocateDirect(8);
                        ByteBuffer in = ByteBuffer.allocateDirect(8);
                        Handles.MrHandle mr = ring.register(out);
                        ring.pingpong(out, in, mr, rounds, rank == 0);
                        ring.stream(out, mr, rounds, 16, rank == 0);
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
}
