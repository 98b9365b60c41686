package io.ofinet.rdma.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Kept receives whose arrivals a step handled are posted again at the start of the next step: each
 * once, in the order they arrived; one that asks again while it is posted waits for the step after,
 * and so do those behind a repost that threw.
 */
class RepostQueueTest {

    /** A kept receive that records its reposts instead of posting. */
    private static final class Recorded extends KeptReceive {
        private final String name;
        private final List<String> log;
        private int askAgain;
        private boolean fails;

        private final RepostQueue queue;

        Recorded(RepostQueue queue, String name, List<String> log) {
            super(null);
            this.queue = queue;
            this.name = name;
            this.log = log;
        }

        @Override
        public int engineRail() {
            return 0;
        }

        @Override
        protected boolean arrived(long flags, long len, long data) {
            return true;
        }

        @Override
        public void repost() {
            log.add(name);
            if (fails) {
                fails = false;
                throw new IllegalStateException(name + " failed to post");
            }
            if (askAgain > 0) {
                askAgain--;
                queue.add(this);
            }
        }

        @Override
        protected int post() {
            throw new AssertionError("recorded, never posted");
        }

        @Override
        protected String describe() {
            return name;
        }
    }

    @Test
    void eachOnceInOrderAndLaterAsksWaitForTheNextStep() {
        RepostQueue queue = new RepostQueue();
        List<String> log = new ArrayList<>();
        Recorded a = new Recorded(queue, "a", log);
        Recorded b = new Recorded(queue, "b", log);
        Recorded c = new Recorded(queue, "c", log);

        queue.add(a);
        queue.add(b);
        queue.add(a);
        queue.add(b);
        queue.add(c);
        queue.postAll();
        assertEquals(List.of("a", "b", "c"), log, "each once, in order");

        log.clear();
        queue.postAll();
        assertEquals(List.of(), log, "the queue is empty after a step");

        b.askAgain = 1;
        queue.add(b);
        queue.add(a);
        queue.postAll();
        assertEquals(List.of("b", "a"), log, "b's second ask is not taken in the step that reposts it");
        log.clear();
        queue.postAll();
        assertEquals(List.of("b"), log, "but in the next");

        log.clear();
        b.fails = true;
        queue.add(a);
        queue.add(b);
        queue.add(c);
        assertThrows(IllegalStateException.class, queue::postAll);
        assertEquals(List.of("a", "b"), log);
        log.clear();
        queue.postAll();
        assertEquals(List.of("c"), log, "what a failed repost left behind waits for the next step");
    }
}
