package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ofinet.mr.RegistrationCache.Removal;
import org.junit.jupiter.api.Test;

/** The registration cache's behaviours, from the C++ anchor's own tests (page size 1024). */
class RegistrationCacheTest {
    private final RegistrationCache<String> cache = new RegistrationCache<>(1024);

    @Test
    void keysRoundToPages() {
        RegistrationCache.Entry<String> a = cache.insert(512, 16, "a");
        assertEquals(0, a.start());
        assertEquals(1024, a.end());
        RegistrationCache<String> other = new RegistrationCache<>(1024);
        RegistrationCache.Entry<String> b = other.insert(512, 1024, "b");
        assertEquals(0, b.start());
        assertEquals(2048, b.end());
        RegistrationCache<String> third = new RegistrationCache<>(1024);
        RegistrationCache.Entry<String> c = third.insert(1008, 17, "c");
        assertEquals(0, c.start());
        assertEquals(2048, c.end());
    }

    @Test
    void lookupInsideTheEntrysPagesHitsAndSpillingIntoTheNextPageMisses() {
        cache.insert(512, 16, "a");
        RegistrationCache.Entry<String> hit = cache.lookup(0, 1024);
        assertNotNull(hit);
        assertSame("a", hit.value());
        assertEquals(2, hit.references());
        assertNotNull(cache.lookup(1000, 24));
        assertNull(cache.lookup(1000, 25), "spills into page [1024, 2048)");
        assertNull(cache.lookup(1024, 1));
    }

    @Test
    void insertingACoveredRangeIsRefused() {
        cache.insert(0, 4096, "a");
        assertThrows(IllegalStateException.class, () -> cache.insert(1024, 16, "b"));
        assertThrows(IllegalStateException.class, () -> cache.insert(3000, 2000, "c"), "overlapping pages");
        cache.insert(4096, 10, "d");
        assertEquals(2, cache.size());
    }

    @Test
    void removeCountsReferencesDownToDeregister() {
        cache.insert(512, 16, "a");
        cache.lookup(600, 10);
        cache.lookup(0, 1);
        assertEquals(Removal.STILL_REFERENCED, cache.remove(512, 16));
        assertEquals(Removal.STILL_REFERENCED, cache.remove(600, 10));
        assertEquals(Removal.DEREGISTER, cache.remove(0, 1));
        assertEquals(0, cache.size());
        assertEquals(0, cache.bytes());
        assertEquals(Removal.NOT_FOUND, cache.remove(512, 16));
        assertEquals(Removal.NOT_FOUND, cache.remove(1 << 20, 8));
    }

    @Test
    void pageSizeMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new RegistrationCache<>(1000));
        assertThrows(IllegalArgumentException.class, () -> new RegistrationCache<>(0));
    }
}
