package io.ofinet.rdma.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestPoolTest {
    /** A request that only counts how many were made. */
    private static final class Counted extends Request {
        Counted(RequestPool<Counted> home) {
            super(null, home);
        }
    }

    private int made;

    private RequestPool<Counted> pool(int bound) {
        return new RequestPool<>(bound, home -> {
            made++;
            return new Counted(home);
        });
    }

    private static Counted begun(RequestPool<Counted> pool) {
        Counted r = pool.take();
        if (r != null) {
            r.begin(0);
        }
        return r;
    }

    @Test
    void requestsAreMadeWhenFirstNeededUpToTheBound() {
        RequestPool<Counted> pool = pool(6);
        assertEquals(0, made, "an idle communicator holds no request");
        Set<Counted> taken = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            taken.add(begun(pool));
        }
        assertEquals(6, taken.size());
        assertEquals(6, made);
        assertFalse(pool.available());
        assertNull(pool.take(), "the bound: retry later");
        assertEquals(6, pool.outstanding());
        assertEquals(6, pool.created());
    }

    @Test
    void aBusyPoolReusesWhatItMadeAndMakesNothingMore() {
        RequestPool<Counted> pool = pool(256);
        Counted[] window = new Counted[16];
        for (int round = 0; round < 1000; round++) {
            for (int i = 0; i < window.length; i++) {
                window[i] = begun(pool);
            }
            for (Counted r : window) {
                pool.give(r);
            }
        }
        assertEquals(16, made, "the most outstanding at once, made once");
        assertEquals(0, pool.outstanding());
    }

    @Test
    void givingTwiceOrPuttingBackKeepsTheCountsRight() {
        RequestPool<Counted> pool = pool(2);
        Counted a = begun(pool);
        pool.give(a);
        pool.give(a);
        assertEquals(0, pool.outstanding(), "a second give is ignored");
        Counted b = pool.take();
        assertSame(a, b);
        pool.putBack(b);
        assertEquals(0, pool.outstanding());
        assertNotNull(begun(pool));
        assertNotNull(begun(pool));
        assertNull(pool.take());
    }

    @Test
    void anIdlePoolDropsItsRequestsAndABusyOneKeepsThem() {
        RequestPool<Counted> pool = pool(8);
        Counted a = begun(pool);
        long t = 0;
        for (int i = 0; i < 5; i++, t += RequestPool.IDLE_NANOS) {
            assertFalse(pool.trimIfIdle(t), "one outstanding, for seconds: nothing dropped");
        }
        assertSame(a, pool.at(0));
        pool.give(a);
        assertFalse(pool.trimIfIdle(t), "its request came back just now");
        assertFalse(pool.trimIfIdle(t + RequestPool.IDLE_NANOS / 2), "not idle long enough");
        assertTrue(pool.trimIfIdle(t + 2 * RequestPool.IDLE_NANOS), "idle: dropped");
        assertEquals(0, pool.created());
        assertEquals(0, pool.outstanding());
        assertTrue(pool.available());
        assertNotNull(begun(pool));
        assertEquals(2, made, "made again after the drop");
        Counted b = pool.at(0);
        pool.give(b);
        long later = t + 10 * RequestPool.IDLE_NANOS;
        assertFalse(pool.trimIfIdle(later), "taken since the last look: busy");
        assertTrue(pool.trimIfIdle(later + 2 * RequestPool.IDLE_NANOS));
    }

    @Test
    void theOldestReturnedIsReusedFirst() {
        RequestPool<Counted> pool = pool(8);
        Counted a = begun(pool);
        Counted b = begun(pool);
        pool.give(a);
        pool.give(b);
        assertSame(a, pool.take(), "a came back first");
        assertSame(b, pool.take());
    }
}
