package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HandleTableTest {

    @Test
    void aHandleFindsItsValueUntilRemovedAndNeverAfter() {
        HandleTable<String> table = new HandleTable<>(0x43);
        long a = table.add("a");
        assertNotEquals(0, a);
        assertEquals(0x43, a >>> 56, "the kind is in the top byte");
        assertSame("a", table.get(a));
        assertSame("a", table.remove(a));
        assertNull(table.get(a), "stale");
        assertNull(table.remove(a), "removing twice finds nothing");
        long b = table.add("b");
        assertEquals(HandleTable.index(a), HandleTable.index(b), "the index is reused");
        assertNull(table.get(a), "but the old handle's generation differs");
        assertSame("b", table.get(b));
    }

    @Test
    void garbageNullAndOtherKindsFindNothing() {
        HandleTable<String> table = new HandleTable<>(0x43);
        HandleTable<String> other = new HandleTable<>(0x4D);
        long h = table.add("x");
        long foreign = other.add("y");
        assertNull(table.get(0));
        assertNull(table.get(0xdeadbeefL));
        assertNull(table.get(-1L));
        assertNull(table.get(foreign), "a handle of another table");
        assertNull(table.get(h + 1), "a neighbour index that was never given out");
        assertNull(table.get(h ^ (1L << HandleTable.GENERATION_SHIFT)), "another generation");
    }

    @Test
    void growsAndCountsLiveHandles() {
        HandleTable<Integer> table = new HandleTable<>(1);
        Set<Long> handles = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            handles.add(table.add(i));
        }
        assertEquals(1000, handles.size());
        assertEquals(1000, table.live());
        for (long h : handles) {
            table.remove(h);
        }
        assertEquals(0, table.live());
    }

    @Test
    void theValueMayBeBuiltFromItsHandle() {
        HandleTable<Integer> table = new HandleTable<>(1);
        table.add(-1);
        long h = table.add(handle -> HandleTable.index(handle) * 10);
        assertEquals(10, table.get(h));
        assertEquals(10, table.atIndex(HandleTable.index(h)));
        assertNull(table.atIndex(99));
    }
}
