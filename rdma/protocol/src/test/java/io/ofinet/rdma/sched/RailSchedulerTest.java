package io.ofinet.rdma.sched;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RailSchedulerTest {
    private final RailScheduler scheduler = new RailScheduler(4, 4096, 64);
    private final Schedule schedule = new Schedule(4);

    private int[] rails(long size) {
        scheduler.schedule(size, schedule);
        int[] rails = new int[schedule.stripes()];
        for (int i = 0; i < rails.length; i++) {
            rails[i] = schedule.rail(i);
        }
        return rails;
    }

    @Test
    void anchorSequenceOfWholeAndStripedMessages() {
        // The C++ anchor's scheduler test: 4 rails, minimum stripe 4096, fresh scheduler.
        long[] sizes = {0, 2175, 2176, 2177, 4095, 4096};
        int[] expected = {0, 0, 1, 2, 3, 0};
        for (int i = 0; i < sizes.length; i++) {
            assertArrayEquals(new int[] {expected[i]}, rails(sizes[i]), "size " + sizes[i]);
        }
        int[][] pairs = {{1, 2}, {3, 0}, {1, 2}, {3, 0}, {1, 2}, {3, 0}};
        for (int i = 0; i < 6; i++) {
            long size = 4097 + i * (8192 - 4097) / 5;
            assertArrayEquals(pairs[i], rails(size), "size " + size);
        }
    }

    @Test
    void threeWantedStripesBecomeTwoAndLargerMessagesTakeFour() {
        assertEquals(2, rails(8193).length);
        assertEquals(2, rails(12288).length);
        assertEquals(4, rails(12289).length);
        assertEquals(4, rails(8 << 20).length);
    }

    @Test
    void stripesAre128AlignedAndCoverTheMessage() {
        scheduler.schedule(4097, schedule);
        assertEquals(2, schedule.stripes());
        assertEquals(2176, schedule.length(0));
        assertEquals(2176, schedule.offset(1));
        assertEquals(1921, schedule.length(1));
    }

    @Test
    void smallMessagesRotateOnTheirOwnCounter() {
        assertArrayEquals(new int[] {0}, rails(10));
        assertArrayEquals(new int[] {0}, rails(1000)); // the large-message counter starts at 0 too
        assertArrayEquals(new int[] {1}, rails(63));
        assertArrayEquals(new int[] {1}, rails(64));
    }

    @Test
    void randomSizesAlwaysTileTheMessageExactly() {
        SplittableRandom random = new SplittableRandom(7);
        for (int rails = 1; rails <= 16; rails++) {
            RailScheduler s = new RailScheduler(rails, 128 * (1 + random.nextInt(64)), 64);
            Schedule out = new Schedule(rails);
            for (int i = 0; i < 2000; i++) {
                long size = random.nextLong(1L << (1 + random.nextInt(26)));
                s.schedule(size, out);
                long covered = 0;
                for (int k = 0; k < out.stripes(); k++) {
                    assertEquals(covered, out.offset(k));
                    assertTrue(out.length(k) > 0 || size == 0, out.toString());
                    assertTrue(out.rail(k) >= 0 && out.rail(k) < rails);
                    if (k < out.stripes() - 1) {
                        assertEquals(0, out.length(k) % 128, out.toString());
                    }
                    covered += out.length(k);
                }
                assertEquals(size, covered, out.toString());
                // Stripes divide the rails, except when rounding stripes up to 128 bytes already
                // covers the message before the last ones: then fewer, all full, stripes.
                assertTrue(out.stripes() <= rails, out.toString());
            }
        }
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> new RailScheduler(0, 4096, 64));
        assertThrows(IllegalArgumentException.class, () -> new RailScheduler(2, 1000, 64));
        assertThrows(IllegalArgumentException.class, () -> scheduler.schedule(-1, schedule));
        assertThrows(IndexOutOfBoundsException.class, () -> {
            scheduler.schedule(10, schedule);
            schedule.rail(1);
        });
    }
}
