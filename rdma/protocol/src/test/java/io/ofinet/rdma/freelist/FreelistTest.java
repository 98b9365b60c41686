package io.ofinet.rdma.freelist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The freelist's behaviours, from the C++ anchor's unit tests. */
class FreelistTest {
    /** An entry remembering where it lives. */
    record Entry(Freelist.Block block, long address) {
    }

    /** Fake native memory: hands out increasing addresses, records frees. */
    static final class FakeMemory implements Freelist.BlockMemory {
        long next = 0x100001; // deliberately misaligned
        final List<Long> freed = new ArrayList<>();
        int allocations;

        @Override
        public long allocate(long bytes) {
            allocations++;
            long a = next;
            next += bytes + 4096;
            return a;
        }

        @Override
        public void free(long address) {
            freed.add(address);
        }
    }

    @Test
    void aListOfMaximumEightHandsOutExactlyEight() throws Exception {
        Freelist<Entry> list = Freelist.builder("eight", Entry::new).sizes(0, 8, 8).build();
        Set<Entry> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < 8; i++) {
            assertTrue(seen.add(assertNotNull(list.acquire())));
        }
        assertNull(list.acquire(), "exhausted");
        list.close();
    }

    private static <T> T assertNotNull(T value) {
        org.junit.jupiter.api.Assertions.assertNotNull(value);
        return value;
    }

    @Test
    void hooksRunOncePerEntryCreatedAndOncePerEntryAtClose() throws Exception {
        int[] created = {0};
        int[] closed = {0};
        Freelist<Entry> list = Freelist.builder("hooks", Entry::new).sizes(8, 8, 16)
                .hooks(e -> created[0]++, e -> closed[0]++).build();
        assertEquals(8, created[0]);
        List<Entry> taken = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            taken.add(list.acquire());
        }
        assertEquals(16, created[0]);
        assertNull(list.acquire());
        assertEquals(16, created[0], "no entry made past the maximum");
        taken.forEach(list::release);
        list.close();
        assertEquals(16, closed[0]);
        list.close();
        assertEquals(16, closed[0], "closing twice is harmless");
    }

    @Test
    void aFreedEntryIsReused() throws Exception {
        Freelist<Entry> list = Freelist.builder("reuse", Entry::new).sizes(1, 1, 1).build();
        Entry e = list.acquire();
        assertNull(list.acquire());
        list.release(e);
        assertSame(e, list.acquire());
        assertThrows(IllegalStateException.class, () -> {
            list.release(e);
            list.release(e);
        });
        list.close();
    }

    @Test
    void registeredBlocksAreRegisteredOnceAndDeregisteredAtClose() throws Exception {
        FakeMemory memory = new FakeMemory();
        List<Long> registered = new ArrayList<>();
        List<Object> deregistered = new ArrayList<>();
        Freelist<Entry> list = Freelist.builder("registered", Entry::new).sizes(8, 8, 16)
                .nativeEntries(100, 64, memory)
                .registered(new Freelist.BlockRegistrar() {
                    @Override
                    public Object register(long address, long bytes) {
                        registered.add(address);
                        return "mr" + registered.size();
                    }

                    @Override
                    public void deregister(Object handle) {
                        deregistered.add(handle);
                    }
                }).build();
        assertEquals(128, list.entrySize(), "100 bytes rounded to the alignment");
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            entries.add(list.acquire());
        }
        assertEquals(2, registered.size(), "one registration per block, not per entry");
        for (int i = 0; i < 16; i++) {
            Entry e = entries.get(i);
            assertEquals(0, e.address() % 64, "aligned");
            assertEquals(i < 8 ? "mr1" : "mr2", e.block().handle(), "each entry carries its block's handle");
            assertTrue(e.address() >= e.block().address() && e.address() + 128 <= e.block().address() + e.block().bytes());
        }
        entries.forEach(list::release);
        list.close();
        assertEquals(List.of("mr2", "mr1"), deregistered);
        assertEquals(2, memory.freed.size());
    }
}
