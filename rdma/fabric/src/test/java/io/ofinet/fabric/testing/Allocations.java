package io.ofinet.fabric.testing;

import java.lang.management.CompilationMXBean;
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

    /** How long the JIT compilers must have been idle before the counted runs start. */
    private static final long JIT_IDLE_NANOS = 300_000_000L;
    /** How long the warm-up waits for that at most. */
    private static final long JIT_WAIT_NANOS = 15_000_000_000L;

    /** Counted windows at most: two, and one more whenever the JIT compilers worked during the last. */
    private static final int WINDOWS = 5;

    /**
     * Runs {@code work} {@code warmups} times (class loading, JIT compilation), and on until the JIT
     * compilers have been idle for 300 ms (at most 15 s more: code still running in a lower tier
     * may allocate what the final one does not), then {@code runs} times counted, and returns the
     * bytes the current thread allocated per counted run. On a loaded machine compilation can still
     * be going on when the count starts (a method compiled again, code deoptimized and run in the
     * interpreter meanwhile), and what that allocates is the JIT's, not the work's. So two windows
     * are counted, and more while the compilers worked during the last, up to 5, and the fewest
     * bytes of them is returned: work that allocates on every run allocates in every window.
     */
    public static long perRun(int warmups, int runs, Work work) throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmups; i++) {
            work.run();
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watched = jit != null && jit.isCompilationTimeMonitoringSupported();
        if (watched) {
            long start = System.nanoTime();
            long compiled = jit.getTotalCompilationTime();
            long idleSince = start;
            while (System.nanoTime() - idleSince < JIT_IDLE_NANOS && System.nanoTime() - start < JIT_WAIT_NANOS) {
                for (int i = 0; i < 1000; i++) {
                    work.run();
                }
                long now = jit.getTotalCompilationTime();
                if (now != compiled) {
                    compiled = now;
                    idleSince = System.nanoTime();
                }
            }
        }
        long fewest = Long.MAX_VALUE;
        for (int window = 0; window < WINDOWS; window++) {
            long compiled = watched ? jit.getTotalCompilationTime() : 0;
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < runs; i++) {
                work.run();
            }
            fewest = Math.min(fewest, (threads.getCurrentThreadAllocatedBytes() - before) / runs);
            if (window > 0 && (!watched || jit.getTotalCompilationTime() == compiled)) {
                break;
            }
        }
        return fewest;
    }
}
