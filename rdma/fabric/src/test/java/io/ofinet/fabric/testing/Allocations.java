package io.ofinet.fabric.testing;

import java.lang.management.ManagementFactory;

/** Bytes the current thread allocates per run of a piece of work, from the JVM's per-thread counter. */
public final class Allocations {

    /** A piece of work that may throw. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    private Allocations() {
    }

    /**
     * Runs {@code work} {@code warmups} times (class loading, JIT compilation), then {@code runs}
     * times counted, and returns the bytes the current thread allocated per counted run.
     */
    public static long perRun(int warmups, int runs, Work work) throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmups; i++) {
            work.run();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < runs; i++) {
            work.run();
        }
        return (threads.getCurrentThreadAllocatedBytes() - before) / runs;
    }
}
