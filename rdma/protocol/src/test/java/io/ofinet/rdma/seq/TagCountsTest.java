package io.ofinet.rdma.seq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class TagCountsTest {
    /** Counts agree with a map's over many tags, negative ones and ones alike but for their high bits, through growth. */
    @Test
    void countsEveryTagApartThroughGrowth() {
        TagCounts counts = new TagCounts(2);
        Map<Integer, Integer> expected = new HashMap<>();
        SplittableRandom random = new SplittableRandom(5);
        for (int k = 0; k < 20_000; k++) {
            int tag = switch (k % 3) {
                case 0 -> random.nextInt(300) - 150;
                case 1 -> random.nextInt(64) << 24;
                default -> random.nextInt();
            };
            int before = expected.getOrDefault(tag, 0);
            assertEquals(before, counts.get(tag), "tag " + tag);
            assertEquals(before, counts.next(tag), "tag " + tag);
            expected.put(tag, before + 1);
        }
        assertEquals(expected.size(), counts.tags());
        expected.forEach((tag, n) -> assertEquals(n, counts.get(tag), "tag " + tag));
        assertEquals(0, counts.get(Integer.MIN_VALUE + 7), "a tag never counted");
    }

    /** A caller whose tags look unbounded is told once, as the table passes {@link TagCounts#MANY} tags. */
    @Test
    void warnsOnceWhenTagsLookUnbounded() {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(TagCounts.class.getName());
        logger.addHandler(handler);
        try {
            TagCounts counts = new TagCounts();
            for (int tag = 0; tag < TagCounts.MANY; tag++) {
                counts.next(tag);
            }
            assertEquals(0, warnings.size(), "not yet past " + TagCounts.MANY + " tags");
            for (int tag = TagCounts.MANY; tag < 4 * TagCounts.MANY; tag++) {
                counts.next(tag);
            }
            assertEquals(1, warnings.size(), "one warning through two more growths");
            assertTrue(warnings.get(0).getMessage().contains("different tags"), warnings.get(0).getMessage());
            assertEquals(4 * TagCounts.MANY, counts.tags());
        } finally {
            logger.removeHandler(handler);
        }
    }

    @Test
    void capacityIsAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new TagCounts(3));
        assertThrows(IllegalArgumentException.class, () -> new TagCounts(1));
    }

    /** An ordinal is behind a count within half the 16-bit space, across its wrap. */
    @Test
    void passedComparesOrdinalsModuloTheirSpace() {
        assertFalse(TagCounts.passed(5, 5), "the next one has not come");
        assertTrue(TagCounts.passed(5, 4));
        assertFalse(TagCounts.passed(5, 6));
        assertTrue(TagCounts.passed(0x10002, 0xFFFF), "behind across the wrap");
        assertFalse(TagCounts.passed(0xFFFF, 0x0001), "ahead across the wrap");
        assertTrue(TagCounts.passed(0x7FFF, 0), "just under half the space behind");
        assertFalse(TagCounts.passed(0x8000, 0), "half the space behind or more reads as ahead");
    }
}
