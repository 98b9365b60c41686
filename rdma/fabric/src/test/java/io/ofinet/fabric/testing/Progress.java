package io.ofinet.fabric.testing;

import io.ofinet.fabric.FabricException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/** Drives progress on several peers until a condition holds, within a time bound. */
public final class Progress {
    private Progress() {
    }

    /** A condition checked between progress steps. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws FabricException;
    }

    public static void until(Duration timeout, Condition condition, Peer... peers)
            throws FabricException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("condition not met within " + timeout);
            }
            for (Peer peer : peers) {
                peer.progress();
            }
            Thread.onSpinWait();
        }
    }

    /** Progresses the peers for a while, for "nothing happens" checks. */
    public static void spin(Duration duration, Peer... peers) throws FabricException {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            for (Peer peer : peers) {
                peer.progress();
            }
            Thread.yield();
        }
    }
}
