package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JIT's work as the benchmark sees it, and the repetitions it keeps out of the results. */
class JitGateTest {
    private static final long MS = 1_000_000L;

    /** The compilers' work, moved by the test. */
    private final AtomicLong work = new AtomicLong(1_000 * MS);

    @Test
    void quietOnlyOnceTheWorkHasStoodStillForTheWholeWindow() {
        JitActivity jit = new JitActivity(500, work::get);
        assertFalse(jit.quiet(0));
        work.addAndGet(JitActivity.SLACK_NANOS - 1);
        assertFalse(jit.quiet(400 * MS));
        assertTrue(jit.quiet(500 * MS), "growth within the slack is quiet");
        work.addAndGet(2);
        assertFalse(jit.quiet(600 * MS), "work past the slack starts the window again");
        assertFalse(jit.quiet(1_099 * MS));
        assertTrue(jit.quiet(1_100 * MS));
    }

    @Test
    void withoutAMeasureOrAWindowEverythingIsQuiet() {
        JitActivity unknown = new JitActivity(500, null);
        assertTrue(unknown.quiet(0));
        JitActivity off = new JitActivity(0, work::get);
        long before = off.work();
        work.addAndGet(100 * MS);
        assertTrue(off.quiet(0));
        assertFalse(off.workedSince(before));
    }

    @Test
    void aRepetitionDuringWhichAnyRankCompiledIsRunAgainAfterAQuietWarmUp() throws Exception {
        JitActivity jit = new JitActivity(500, work::get);
        // Runs of 100 iterations are warm-ups, of 7 repetitions. This rank compiles during the
        // second repetition; another rank says it compiled during the sixth run.
        List<Integer> runs = new ArrayList<>();
        JitGate.Rounds rounds = iterations -> {
            runs.add(iterations);
            if (runs.size() == 3) {
                work.addAndGet(10 * MS);
            }
            return runs.size();
        };
        JitGate gate = new JitGate(jit, mine -> mine || runs.size() == 6, rounds, 100);
        gate.warmUp();
        double[] times = gate.repetitions(7, 3);
        assertEquals(List.of(100, 7, 7, 100, 7, 7, 100, 7), runs);
        assertEquals(2, gate.redone());
        assertArrayEquals(new double[] {2, 5, 8}, times, "the third and the sixth runs are not kept");
    }

    @Test
    void repetitionsAreRunAgainAtMostAsOftenAsThereAreRepetitionsOrTheLeastBudget() throws Exception {
        JitActivity jit = new JitActivity(500, work::get);
        List<Integer> runs = new ArrayList<>();
        JitGate.Rounds rounds = iterations -> {
            runs.add(iterations);
            if (iterations < 100) {
                work.addAndGet(10 * MS);
            }
            return runs.size();
        };
        JitGate gate = new JitGate(jit, mine -> mine, rounds, 100);
        gate.warmUp();
        double[] times = gate.repetitions(1, 2);
        assertEquals(3, JitGate.MIN_REDO_BUDGET);
        assertEquals(List.of(100, 1, 100, 1, 100, 1, 100, 1, 1), runs);
        assertEquals(3, gate.redone());
        assertArrayEquals(new double[] {8, 9}, times, "once the budget is spent the runs are kept as they are");
        runs.clear();
        times = gate.repetitions(2, 5);
        assertEquals(5, gate.redone(), "five repetitions may run again five times");
        assertEquals(15, runs.size());
        assertEquals(5, times.length);
    }

    @Test
    void theWarmUpRunsUntilNoRankCompiledDuringIt() throws Exception {
        JitActivity jit = new JitActivity(500, work::get);
        int[] runs = {0};
        new JitGate(jit, mine -> mine, iterations -> {
            if (++runs[0] < 3) {
                work.addAndGet(10 * MS);
            }
            return 0;
        }, 100).warmUp();
        assertEquals(3, runs[0]);
        runs[0] = 0;
        new JitGate(jit, mine -> true, iterations -> ++runs[0], 100).warmUp();
        assertEquals(JitGate.MAX_WARMUPS, runs[0], "a rank that never goes quiet bounds the warm-up");
    }

    @Test
    void compilerTimeIsTheSumOverTheCompilerThreads(@TempDir Path tasks) throws IOException {
        thread(tasks, 11, "java", "900 1 1");
        assertEquals(-1, JitActivity.compilerCpuNanos(tasks), "no compiler thread");
        thread(tasks, 12, "C2 CompilerThre", "250 3 4");
        thread(tasks, 13, "C1 CompilerThre", "40 1 1");
        thread(tasks, 14, "C2 CompilerThre", "not a number");
        assertEquals(290, JitActivity.compilerCpuNanos(tasks));
        assertEquals(-1, JitActivity.compilerCpuNanos(tasks.resolve("absent")));
    }

    @Test
    void thisJvmsCompilersAreSeenAtWork() throws Exception {
        Path tasks = Path.of("/proc/self/task");
        long before = JitActivity.compilerCpuNanos(tasks);
        assumeTrue(before > 0, "no /proc with compiler threads here");
        long sum = 0;
        long deadline = System.nanoTime() + 20_000 * MS;
        while (JitActivity.compilerCpuNanos(tasks) == before && System.nanoTime() < deadline) {
            sum += hot(sum);
        }
        assertTrue(JitActivity.compilerCpuNanos(tasks) > before,
                "compiling a hot method shows as compiler time " + sum);
    }

    /** Code this JVM has not compiled before the test calls it. */
    private static long hot(long seed) {
        long x = seed;
        for (int i = 0; i < 10_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L ^ (x >>> 17);
        }
        return x;
    }

    private static void thread(Path tasks, int tid, String comm, String schedstat) throws IOException {
        Path dir = Files.createDirectories(tasks.resolve(Integer.toString(tid)));
        Files.writeString(dir.resolve("comm"), comm + "\n");
        Files.writeString(dir.resolve("schedstat"), schedstat + "\n");
    }
}
