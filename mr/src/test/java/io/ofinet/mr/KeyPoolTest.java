package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        assertEquals(1, pool.ranges());
    }

    @Test
    void randomAllocateAndFreeMatchesAReferenceModel() throws MrException {
        KeyPool pool = new KeyPool(1, 8);
        BitSet model = new BitSet(256);
        SplittableRandom random = new SplittableRandom(42);
        int next = 0;
        for (int step = 0; step < 100_000; step++) {
            if (random.nextBoolean() && model.cardinality() < 256) {
                int expected = model.nextClearBit(next);
                if (expected >= 256) {
                    expected = model.nextClearBit(0);
                }
                assertEquals(expected, pool.allocate());
                model.set(expected);
                next = (expected + 1) % 256;
            } else if (model.cardinality() > 0) {
                int nth = random.nextInt(model.cardinality());
                int key = model.nextSetBit(0);
                for (int i = 0; i < nth; i++) {
                    key = model.nextSetBit(key + 1);
                }
                pool.free(key);
                model.clear(key);
            }
            assertEquals(model.cardinality(), pool.inUse());
        }
    }
}
