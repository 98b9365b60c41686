package io.ofinet.rdma;

/**
 * A wait up to a bound that an interrupt does not cut short: what a process's end does for work it
 * must not cut in the middle (the watchdog's look, {@link Shutdown}; a door's warm-up). An interrupt
 * during the wait is kept for the caller: the thread's interrupt status is set again on return.
 */
public final class BoundedWait {

    /** A timed wait: waits at most {@code nanos} (zero: does not wait) and says whether the awaited thing has happened. */
    @FunctionalInterface
    public interface Timed {
        boolean await(long nanos) throws InterruptedException;
    }

    private BoundedWait() {
    }

    /**
     * Waits through interrupts until {@code wait} says it has happened or {@code timeoutNanos} has
     * passed; whether it happened. An interrupt before the bound asks again with the time left (zero
     * once the bound has passed, so that an interrupt at the last moment does not by itself turn "it
     * happened" into "it did not"); one during that last asking ends the wait.
     */
    public static boolean throughInterrupts(long timeoutNanos, Timed wait) {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return wait.await(Math.max(0, left));
                } catch (InterruptedException e) {
                    interrupted = true;
                    if (left <= 0) {
                        return false; // interrupted again in the last look: the bound holds
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
