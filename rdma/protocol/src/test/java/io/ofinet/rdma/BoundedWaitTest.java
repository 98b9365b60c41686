package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.TestTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A wait through interrupts: it goes on after an interrupt with the time left, keeps the interrupt
 * for the caller, says whether the thing happened, and keeps its bound even against a thread that
 * interrupts it at every turn.
 */
@Timeout(60)
class BoundedWaitTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedWaiterStillSeesWhatHappensAfterTheInterruptAndKeepsTheInterrupt() throws Exception {
        CountDownLatch happened = new CountDownLatch(1);
        Thread caller = Thread.currentThread();
        Thread other = new Thread(() -> {
            caller.interrupt();
            sleep(50);
            happened.countDown();
        });
        other.start();
        boolean seen = BoundedWait.throughInterrupts(TestTime.nanos(10_000),
                nanos -> happened.await(nanos, TimeUnit.NANOSECONDS));
        boolean kept = Thread.interrupted();
        other.join();
        assertTrue(kept, "the interrupt is kept for the caller");
        assertTrue(seen, "what happened after the interrupt is seen");
    }

    @Test
    void eachRetryAsksForTheTimeLeftAndTheLastAsksForNone() {
        List<Long> asked = new ArrayList<>();
        long bound = TimeUnit.MILLISECONDS.toNanos(30);
        boolean seen = BoundedWait.throughInterrupts(bound, nanos -> {
            asked.add(nanos);
            if (nanos > 0) {
                sleep(5);
                throw new InterruptedException("an interrupt before the bound");
            }
            return true;
        });
        assertTrue(seen, "asked once more with zero after the bound: it had happened");
        assertTrue(asked.size() >= 2, "asked again after an interrupt: " + asked);
        for (int i = 1; i < asked.size(); i++) {
            assertTrue(asked.get(i) < asked.get(i - 1), "each retry asks for less: " + asked);
        }
        assertTrue(asked.get(0) <= bound, "the first asks for at most the bound: " + asked);
        assertEquals(0L, asked.get(asked.size() - 1), "the last asks for none: " + asked);
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
    }

    @Test
    void aWaitThatIsInterruptedAtEveryTurnStillEndsAtItsBound() {
        int[] turns = {0};
        long start = System.nanoTime();
        boolean seen = BoundedWait.throughInterrupts(TimeUnit.MILLISECONDS.toNanos(20), nanos -> {
            turns[0]++;
            if (turns[0] > 1_000_000) {
                return true; // the bound did not hold: seen below
            }
            throw new InterruptedException("every turn");
        });
        assertFalse(seen, "not happened, after " + turns[0] + " turns in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
    }

    @Test
    void aWaitThatTimesOutSaysSoWithoutRetrying() {
        int[] turns = {0};
        assertFalse(BoundedWait.throughInterrupts(TimeUnit.MILLISECONDS.toNanos(10), nanos -> {
            turns[0]++;
            return false;
        }));
        assertEquals(1, turns[0], "a timed-out wait is believed");
        assertFalse(Thread.currentThread().isInterrupted(), "no interrupt invented");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
