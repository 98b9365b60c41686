package io.ofinet.tools.coll;

/**
 * Polling that makes room for others: spin a while, then yield, so that more processes than
 * cores (four ranks on two cores) all make progress.
 */
final class Backoff {
    private static final int SPINS = 200;
    private int idle;

    void reset() {
        idle = 0;
    }

    void idle() {
        if (++idle < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }
}
