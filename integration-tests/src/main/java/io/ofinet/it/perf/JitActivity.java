package io.ofinet.it.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's JIT compilers have gone quiet: their total compilation time has not grown
 * (by more than {@link #SLACK_MS}) for a given time. On two cores a compiler thread still at work
 * takes a core from the data path in bursts of milliseconds, which the measurements would count.
 */
final class JitActivity {
    /** Growth below this (ms of compilation) counts as quiet: stray compilations of rare paths. */
    static final long SLACK_MS = 5;

    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private final long quietNanos;
    private long compiledMs = -1;
    private long quietSinceNanos;

    /** @param quietMs how long the compilers must have been idle; 0: always quiet */
    JitActivity(long quietMs) {
        this.quietNanos = quietMs * 1_000_000L;
    }

    /** Whether the compilers have been idle for the given time before {@code now} (System.nanoTime). */
    boolean quiet(long now) {
        if (quietNanos == 0 || compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return true;
        }
        long ms = compiler.getTotalCompilationTime();
        if (compiledMs < 0 || ms > compiledMs + SLACK_MS) {
            compiledMs = ms;
            quietSinceNanos = now;
        }
        return now - quietSinceNanos >= quietNanos;
    }
}
