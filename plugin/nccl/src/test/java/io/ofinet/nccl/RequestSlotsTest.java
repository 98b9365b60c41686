package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.plugin.Handles;
import org.junit.jupiter.api.Test;

class RequestSlotsTest {
    private static final Handles.Request A = new Handles.Request() {
    };
    private static final Handles.Request B = new Handles.Request() {
    };

    /** A communicator handle as the door's table makes them: kind, generation, index. */
    private static long comm(int index, int generation) {
        return 0x43L << HandleTable.KIND_SHIFT | (long) generation << HandleTable.GENERATION_SHIFT | index;
    }

    @Test
    void aRequestHandleNamesItsCommunicatorAndIsStaleOnceRemoved() throws Exception {
        RequestSlots slots = new RequestSlots(comm(7, 1));
        long a = slots.add(A, RequestSlots.SEND, 4096);
        assertEquals(7, RequestSlots.commIndex(a));
        int slot = slots.slot(a);
        assertSame(A, slots.request(slot));
        assertEquals(4096, slots.amount(slot));
        assertEquals(RequestSlots.SEND, slots.type(slot));
        slots.remove(slot);
        assertEquals(-1, slots.slot(a), "reported: stale");
        long b = slots.add(B, RequestSlots.RECV, 8);
        assertEquals(slot, slots.slot(b), "the slot is reused");
        assertEquals(-1, slots.slot(a), "under another generation");
        assertEquals(1, slots.outstanding());
    }

    @Test
    void handlesOfOtherCommunicatorsAndGarbageFindNothing() throws Exception {
        RequestSlots slots = new RequestSlots(comm(7, 1));
        RequestSlots other = new RequestSlots(comm(8, 1));
        slots.add(A, RequestSlots.SEND, 1);
        long foreign = other.add(B, RequestSlots.SEND, 1);
        assertEquals(-1, slots.slot(foreign));
        assertEquals(-1, slots.slot(0));
        assertEquals(-1, RequestSlots.commIndex(0xdeadbeefL));
        assertEquals(-1, RequestSlots.commIndex(0));
    }

    @Test
    void holdsThreeHundredOutstandingAndMore() throws Exception {
        RequestSlots slots = new RequestSlots(comm(1, 1));
        long[] handles = new long[300];
        for (int i = 0; i < handles.length; i++) {
            handles[i] = slots.add(A, RequestSlots.SEND, i);
        }
        for (int i = 0; i < handles.length; i++) {
            assertEquals(i, slots.amount(slots.slot(handles[i])));
        }
        assertEquals(300, slots.outstanding());
    }

    @Test
    void aDeferredFlushKeepsItsArgumentsUntilPosted() throws Exception {
        RequestSlots slots = new RequestSlots(comm(1, 1));
        long h = slots.add(null, RequestSlots.FLUSH, 2);
        int slot = slots.slot(h);
        Handles.MrHandle mr = new Handles.MrHandle() {
        };
        slots.deferFlush(slot, 2, new long[] {10, 20, 0}, new long[] {1, 2, 0}, new Handles.MrHandle[] {mr, mr, null});
        assertNull(slots.request(slot));
        assertEquals(20, slots.flushAddresses(slot)[1]);
        assertSame(mr, slots.flushMrs(slot)[1]);
        slots.posted(slot, A);
        assertSame(A, slots.request(slot));
        slots.remove(slot);
        assertNull(slots.flushMrs(slot)[0], "no registration is kept once the slot is free");
    }

    @Test
    void aRequestOfTheCommunicatorThatHadTheIndexBeforeIsRefused() throws Exception {
        RequestSlots now = new RequestSlots(comm(7, 0x1234_02));
        long handle = now.add(A, RequestSlots.SEND, 1);
        assertEquals(0, now.slot(handle));
        assertEquals(0x02, handle >>> 28 & 0xFF, "the handle carries its communicator's generation");
        for (int generation : new int[] {0x1234_01, 0x1234_03, 0x1233_02 ^ 0xFF}) {
            long before = handle & ~(0xFFL << 28) | (long) (generation & 0xFF) << 28;
            assertEquals(-1, now.slot(before), "generation " + Integer.toHexString(generation));
            assertEquals(7, RequestSlots.commIndex(before));
        }
    }

    @Test
    void aCommunicatorIndexBeyondTwentyBitsIsRefused() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new RequestSlots(comm(1 << 20, 1)));
        RequestSlots last = new RequestSlots(comm((1 << 20) - 1, 0xFF_FFFF));
        assertEquals((1 << 20) - 1, RequestSlots.commIndex(last.add(A, RequestSlots.SEND, 1)));
    }

    @Test
    void aRegistrationWhoseSlotsChangeUnderTheReadCountsAsHeld() {
        RequestSlots changing = org.mockito.Mockito.mock(RequestSlots.class);
        Handles.MrHandle mr = new Handles.MrHandle() {
        };
        org.mockito.Mockito.when(changing.flushWaitsWith(mr)).thenThrow(new ArrayIndexOutOfBoundsException(8));
        assertTrue(CommEntry.Registration.heldBy(changing, mr), "tried again later");
        assertTrue(!CommEntry.Registration.heldBy(new RequestSlots(comm(1, 1)), mr));
        assertTrue(!CommEntry.Registration.heldBy(null, mr));
    }
}
