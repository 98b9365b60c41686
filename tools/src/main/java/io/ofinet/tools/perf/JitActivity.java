package io.ofinet.tools.perf;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * Whether this JVM's JIT compilers have gone quiet: the work they have done has not grown (by more
 * than {@link #SLACK_NANOS}) for a given time. On two cores a compiler thread still at work takes
 * a core from the data path in slices of milliseconds, which the measurements would count.
 *
 * <p>The work is the CPU time of the compiler threads where Linux's {@code /proc} shows them. That
 * grows while a compilation is under way. The {@link CompilationMXBean}'s total compilation time,
 * the fallback elsewhere, grows only when a compilation ends: a C2 compilation of the data path
 * that a starved core stretches over a second looks quiet until it is done.
 */
final class JitActivity {
    /** Growth below this counts as quiet: stray compilations of rare paths. */
    static final long SLACK_NANOS = 5_000_000L;
    /** How HotSpot names its compiler threads (a thread's name in /proc is cut to 15 characters). */
    private static final String[] COMPILER_THREADS = {"C1 CompilerThre", "C2 CompilerThre", "JVMCI CompilerT"};

    private final LongSupplier work;
    private final long quietNanos;
    private long seen = -1;
    private long quietSinceNanos;

    /** @param quietMs how long the compilers must have been idle; 0: always quiet */
    JitActivity(long quietMs) {
        this(quietMs, compilerWork());
    }

    /** @param work the compilers' work so far in ns, or null if unknown (always quiet) */
    JitActivity(long quietMs, LongSupplier work) {
        this.quietNanos = work == null ? 0 : quietMs * 1_000_000L;
        this.work = work;
    }

    /** Whether the compilers have been idle for the given time before {@code now} (System.nanoTime). */
    boolean quiet(long now) {
        if (quietNanos == 0) {
            return true;
        }
        long w = work.getAsLong();
        if (seen < 0 || Math.abs(w - seen) > SLACK_NANOS) {
            seen = w;
            quietSinceNanos = now;
        }
        return now - quietSinceNanos >= quietNanos;
    }

    /** The compilers' work so far in ns, to hand to {@link #workedSince} later; 0 when not watched. */
    long work() {
        return quietNanos == 0 ? 0 : work.getAsLong();
    }

    /** Whether the compilers have done more than {@link #SLACK_NANOS} of work since {@code before} ({@link #work}). */
    boolean workedSince(long before) {
        return quietNanos != 0 && Math.abs(work.getAsLong() - before) > SLACK_NANOS;
    }

    /** The best measure of the compilers' work this JVM offers, or null if none. */
    static LongSupplier compilerWork() {
        Path tasks = Path.of("/proc/self/task");
        if (compilerCpuNanos(tasks) > 0) {
            return () -> compilerCpuNanos(tasks);
        }
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return null;
        }
        return () -> compiler.getTotalCompilationTime() * 1_000_000L;
    }

    /**
     * The CPU time in ns of the compiler threads under {@code tasks} (a {@code /proc/<pid>/task}
     * directory): each thread's {@code comm} names it, the first field of its {@code schedstat}
     * counts its time on a CPU. -1 if none is found.
     */
    static long compilerCpuNanos(Path tasks) {
        long sum = 0;
        boolean found = false;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                long ns = compilerThreadNanos(thread);
                if (ns >= 0) {
                    sum += ns;
                    found = true;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return found ? sum : -1;
    }

    private static long compilerThreadNanos(Path thread) {
        try {
            String comm = Files.readString(thread.resolve("comm")).strip();
            for (String name : COMPILER_THREADS) {
                if (comm.startsWith(name)) {
                    String schedstat = Files.readString(thread.resolve("schedstat")).strip();
                    int space = schedstat.indexOf(' ');
                    return Long.parseLong(space < 0 ? schedstat : schedstat.substring(0, space));
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            // A thread that ended between the listing and the read, or a kernel without schedstat.
            return -1;
        }
    }
}
