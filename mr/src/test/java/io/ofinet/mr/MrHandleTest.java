package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which ranges a handle covers: its own bytes, and nothing that only wraps into them. */
class MrHandleTest {
    private static final long BASE = 0x7f00_0000_1000L;
    private final MrHandle handle = new MrHandle(null, null, null, BASE, 4096, false);

    @Test
    void rangesInsideAreCoveredUpToTheLastByte() {
        assertTrue(handle.covers(BASE, 4096));
        assertTrue(handle.covers(BASE + 4095, 1));
        assertTrue(handle.covers(BASE + 4096, 0), "an empty range at the end");
        assertTrue(handle.covers(0, 0), "an empty range needs no registration");
    }

    @Test
    void rangesThatStartBeforeOrEndAfterAreNot() {
        assertFalse(handle.covers(BASE - 1, 2));
        assertFalse(handle.covers(BASE, 4097));
        assertFalse(handle.covers(BASE + 4096, 1));
        assertFalse(handle.covers(BASE, -1), "a negative size");
    }

    @Test
    void rangesWhoseEndWrapsAreNot() {
        assertFalse(handle.covers(BASE, Long.MAX_VALUE), "the end wraps below the handle's");
        assertFalse(handle.covers(BASE + 1, Long.MAX_VALUE - 1));
        assertFalse(handle.covers(Long.MAX_VALUE - 16, 64), "a start past the handle whose end wraps");
        assertFalse(handle.covers(Long.MIN_VALUE, 64), "an address above 2^63");
    }
}
