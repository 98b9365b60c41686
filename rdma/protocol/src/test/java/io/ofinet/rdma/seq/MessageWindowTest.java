package io.ofinet.rdma.seq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.rdma.seq.MessageWindow.Status;
import org.junit.jupiter.api.Test;

class MessageWindowTest {

    /** The anchor's test: window 4, 4-bit sequence numbers, four rounds so that it wraps. */
    @Test
    void anchorRoundsWrapTheSequenceSpace() {
        MessageWindow<String> w = new MessageWindow<>(4, 4, 0);
        int seq = 0;
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 4; i++) {
                assertEquals(Status.IN_PROGRESS, w.insert(w.add(seq, i), "m" + round + i));
            }
            assertEquals(Status.UNAVAILABLE, w.insert(w.add(seq, 4), "fifth"), "a fifth insert");
            assertEquals(Status.IN_PROGRESS, w.insert(seq, "again"), "a duplicate is refused as in progress");
            for (int i = 0; i < 4; i++) {
                assertEquals("m" + round + i, w.retrieve(w.add(seq, i)));
            }
            for (int i = 0; i < 4; i++) {
                assertTrue(w.complete(w.add(seq, i)));
            }
            seq = w.add(seq, 4);
            assertEquals(Status.NOT_STARTED, w.status(seq), "the next index");
            assertEquals(Status.COMPLETED, w.status(w.add(seq, 15)), "the previous index");
        }
        assertEquals(0, w.start(), "16 messages wrapped a 4-bit space once");
    }

    @Test
    void outOfOrderCompletionHoldsTheWindowAtTheOldest() {
        MessageWindow<Integer> w = new MessageWindow<>(10, 256, 1);
        for (int s = 1; s <= 256; s++) {
            assertEquals(Status.IN_PROGRESS, w.insert(s, s));
        }
        assertEquals(Status.UNAVAILABLE, w.status(257));
        assertTrue(w.complete(200));
        assertEquals(1, w.start());
        assertEquals(Status.UNAVAILABLE, w.status(257), "still full: 1 is outstanding");
        assertTrue(w.complete(1));
        assertEquals(2, w.start());
        assertEquals(Status.NOT_STARTED, w.status(257));
        assertFalse(w.complete(200), "completing twice");
        assertNull(w.retrieve(200));
        assertEquals(Status.COMPLETED, w.insert(200, 0), "a completed message is not stored again");
    }

    @Test
    void windowMustFitTwiceInTheSequenceSpace() {
        assertThrows(IllegalArgumentException.class, () -> new MessageWindow<>(4, 9, 0));
        assertThrows(IllegalArgumentException.class, () -> new MessageWindow<>(31, 4, 0));
    }
}
