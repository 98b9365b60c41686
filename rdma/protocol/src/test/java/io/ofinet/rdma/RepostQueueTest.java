package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ofinet.fabric.mem.MemProvider;
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

        Recorded(RdmaEndpoint endpoint, String name, List<String> log) {
            super(endpoint);
            this.name = name;
            this.log = log;
        }

        @Override
        int engineRail() {
            return 0;
        }

        @Override
        boolean arrived(long flags, long len, long data) {
            return true;
        }

        @Override
        void repost() {
            log.add(name);
            if (fails) {
                fails = false;
                throw new IllegalStateException(name + " failed to post");
            }
            if (askAgain > 0) {
                askAgain--;
                endpoint.repostNextStep(this);
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
    void eachOnceInOrderAndLaterAsksWaitForTheNextStep() throws Exception {
        MemProvider provider = MemProvider.create();
        try (Device device = Device.open(provider, Layouts.mem(1, ""))) {
            RdmaEndpoint endpoint = device.openEndpoint();
            List<String> log = new ArrayList<>();
            Recorded a = new Recorded(endpoint, "a", log);
            Recorded b = new Recorded(endpoint, "b", log);
            Recorded c = new Recorded(endpoint, "c", log);

            endpoint.repostNextStep(a);
            endpoint.repostNextStep(b);
            endpoint.repostNextStep(a);
            endpoint.repostNextStep(b);
            endpoint.repostNextStep(c);
            endpoint.readQueues();
            assertEquals(List.of("a", "b", "c"), log, "each once, in order");

            log.clear();
            endpoint.readQueues();
            assertEquals(List.of(), log, "the queue is empty after a step");

            b.askAgain = 1;
            endpoint.repostNextStep(b);
            endpoint.repostNextStep(a);
            endpoint.readQueues();
            assertEquals(List.of("b", "a"), log, "b's second ask is not taken in the step that reposts it");
            log.clear();
            endpoint.readQueues();
            assertEquals(List.of("b"), log, "but in the next");

            log.clear();
            b.fails = true;
            endpoint.repostNextStep(a);
            endpoint.repostNextStep(b);
            endpoint.repostNextStep(c);
            assertThrows(IllegalStateException.class, endpoint::readQueues);
            assertEquals(List.of("a", "b"), log);
            log.clear();
            endpoint.readQueues();
            assertEquals(List.of("c"), log, "what a failed repost left behind waits for the next step");
        }
    }
}
