package io.ofinet.rdma.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Words owed go oldest first as far as the sender can; one owed again during a pass waits for the next. */
class OwedWordsTest {
    @Test
    void wordsGoOldestFirstAsFarAsTheSenderCanAndTheRestStay() {
        OwedWords owed = new OwedWords(3);
        assertTrue(owed.add(1) && owed.add(2) && owed.add(3));
        assertFalse(owed.add(4), "full");
        List<Integer> sent = new ArrayList<>();
        assertFalse(owed.sendAll(word -> sent.size() < 2 && sent.add(word)));
        assertEquals(List.of(1, 2), sent);
        assertEquals(1, owed.count());
        assertTrue(owed.sendAll(sent::add));
        assertEquals(List.of(1, 2, 3), sent);
        assertEquals(0, owed.count());
    }

    @Test
    void aWordOwedAgainDuringAPassWaitsForTheNext() {
        OwedWords owed = new OwedWords(4);
        owed.add(7);
        List<Integer> sent = new ArrayList<>();
        // The post fails at once: the word is owed again while the pass runs.
        assertFalse(owed.sendAll(word -> sent.add(word) && owed.add(word)));
        assertEquals(List.of(7), sent, "sent once in the pass");
        assertEquals(1, owed.count());
    }
}
