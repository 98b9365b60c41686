package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyPoolTest {

    @Test
    void keySpaceIsTheSmallerOfConfiguredAndProviderSize() {
        assertEquals(65536, new KeyPool(2, 8).capacity());
        assertEquals(256, new KeyPool(2, 1).capacity());
        assertEquals(1L << 32, new KeyPool(4, 4).capacity());
        assertEquals(Long.MAX_VALUE, new KeyPool(8, 8).capacity());
        assertThrows(IllegalArgumentException.class, () -> new KeyPool(0, 8));
        assertThrows(IllegalArgumentException.class, () -> new KeyPool(9, 8));
        assertThrows(IllegalArgumentException.class, () -> new KeyPool(2, 0));
    }

    @Test
    void keysComeInRotationAndAReturnedKeyWaitsForTheRestOfTheKeySpace() throws MrException {
        KeyPool pool = new KeyPool(1, 8);
        for (long k = 0; k < 10; k++) {
            assertEquals(k, pool.allocate());
        }
        pool.free(7);
        pool.free(3);
        assertEquals(10, pool.allocate());
        for (long k = 11; k < 256; k++) {
            assertEquals(k, pool.allocate());
        }
        // The key space is used up to its end: the freed keys come back, oldest position first.
        assertEquals(3, pool.allocate());
        pool.free(0);
        assertEquals(7, pool.allocate());
        assertEquals(0, pool.allocate());
        assertEquals(256, pool.inUse());
    }

    /**
     * A key held while the rotation went round, returned just ahead of it: it would come back at
     * once, where a peer's late write with it would land in the next buffer registered. It is held
     * back until the rotation has passed it, and comes back a whole round later.
     */
    @Test
    void aKeyHeldWhileTheRotationWentRoundIsHeldBackUntilItHasPassed() throws MrException {
        KeyPool pool = new KeyPool(1, 8);
        for (long k = 0; k < 5; k++) {
            assertEquals(k, pool.allocate());
            pool.free(k);
        }
        assertEquals(5, pool.allocate()); // held while the rotation goes round
        for (long k = 6; k < 256 + 4; k++) {
            assertEquals(k % 256, pool.allocate());
            pool.free(k % 256);
        }
        pool.free(5); // the rotation stands at 4: 5 is returned one key ahead of it
        assertEquals(1, pool.heldBack());
        assertEquals(0, pool.inUse());
        assertEquals(4, pool.allocate());
        pool.free(4);
        assertEquals(6, pool.allocate(), "5 is passed over");
        pool.free(6);
        assertEquals(0, pool.heldBack(), "the rotation has passed 5: it is free");
        for (long k = 7; k < 256 + 5; k++) {
            assertEquals(k % 256, pool.allocate());
            pool.free(k % 256);
        }
        assertEquals(5, pool.allocate(), "a whole round later");
    }

    @Test
    void exhaustionIsAnErrorNamingTheLimit() throws MrException {
        KeyPool pool = new KeyPool(1, 8);
        for (int i = 0; i < 256; i++) {
            pool.allocate();
        }
        MrException e = assertThrows(MrException.class, pool::allocate);
        assertEquals("MR key pool exhausted: all 256 keys of the domain are in use (key size 1"
                + " bytes; raise mrKeySize if the provider allows, or deregister buffers)", e.getMessage());
        pool.free(200);
        assertEquals(200, pool.allocate());
        pool.free(17);
        assertEquals(17, pool.allocate());
    }

    @Test
    void doubleAndOutOfRangeFreesAreRejected() throws MrException {
        KeyPool pool = new KeyPool(1, 1);
        long k = pool.allocate();
        pool.free(k);
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> pool.free(k));
        assertEquals("MR key 0 is not in use (freed twice?)", twice.getMessage());
        assertEquals("MR key 256 is outside the key space 0..255",
                assertThrows(IllegalArgumentException.class, () -> pool.free(256)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> pool.free(-1));
        assertThrows(IllegalArgumentException.class, () -> pool.free(17));
    }

    @Test
    void memoryFollowsKeysInUseNotTheKeySpace() throws MrException {
        KeyPool pool = new KeyPool(2, 8);
        for (int i = 0; i < 60000; i++) {
            pool.allocate();
        }
        assertEquals(1, pool.ranges());
        for (long k = 0; k < 60000; k++) {
            if (k != 30000) {
                pool.free(k);
            }
        }
        assertEquals(1, pool.inUse());
        // Keys less than half the key space ahead of the rotation (at 60000) are held back: one range.
        assertEquals(65536 / 2 - (65536 - 60000), pool.heldBack());
        assertEquals(2, pool.ranges());
    }

    /**
     * Against a model of the keys in use, with keys held while the rotation went round: no key is
     * handed out while in use, and with fewer than half the keys in use a returned key never comes
     * back before the rotation has moved half the key space on from where it was at the return.
     */
    @Test
    void randomAllocateAndFreeMatchesAReferenceModel() throws MrException {
        KeyPool pool = new KeyPool(1, 8);
        BitSet model = new BitSet(256);
        long[] returnedAt = new long[256];
        Arrays.fill(returnedAt, -1);
        SplittableRandom random = new SplittableRandom(42);
        long moved = 0; // how far the rotation has moved in all, wraps included
        int next = 0;
        for (int step = 0; step < 100_000; step++) {
            // Mostly few keys in use, now and then up to 100: the rotation goes round with keys held.
            boolean allocate = model.cardinality() < (step / 5_000 % 2 == 0 ? 8 : 100) ? random.nextInt(3) > 0
                    : random.nextInt(3) == 0;
            if (allocate) {
                long key = pool.allocate();
                assertEquals(false, model.get((int) key), "handed out while in use: " + key);
                moved += (key - next + 256) % 256 + 1;
                long since = returnedAt[(int) key] < 0 ? Long.MAX_VALUE : moved - returnedAt[(int) key];
                assertTrue(since >= 128, () -> "key " + key + " back after the rotation moved " + since);
                model.set((int) key);
                next = (int) ((key + 1) % 256);
            } else if (model.cardinality() > 0) {
                int nth = random.nextInt(model.cardinality());
                int key = model.nextSetBit(0);
                for (int i = 0; i < nth; i++) {
                    key = model.nextSetBit(key + 1);
                }
                pool.free(key);
                model.clear(key);
                returnedAt[key] = moved;
            }
            assertEquals(model.cardinality(), pool.inUse());
        }
    }
}
