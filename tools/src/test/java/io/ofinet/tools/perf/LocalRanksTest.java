package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The ranks a local run starts, as real child processes (shell scripts standing in for the JVMs). */
@Timeout(60)
class LocalRanksTest {
    @TempDir
    Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream stdout;
    private PrintStream stderr;

    @BeforeEach
    void capture() {
        stdout = System.out;
        stderr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(stdout);
        System.setErr(stderr);
    }

    /** Rank r runs {@code scripts.get(r)} in a shell. */
    private static IntFunction<List<String>> shell(Map<Integer, String> scripts) {
        return r -> List.of("sh", "-c", scripts.get(r));
    }

    @Test
    void everyRanksLogIsPrintedInRankOrderWithoutBlankLinesOrWarnings() throws Exception {
        int status;
        try (LocalRanks ranks = LocalRanks.start(3, dir, shell(Map.of(
                1, "sleep 0.3; echo one; echo; echo 'WARNING: an incubator module'",
                2, "echo two")))) {
            status = ranks.await(0, 30);
        }
        assertEquals(0, status);
        assertEquals("one\ntwo\n", out.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
        assertTrue(Files.exists(dir.resolve("rank1.log")) && Files.exists(dir.resolve("rank2.log")));
    }

    @Test
    void aRankThatFailsFailsTheRunAndIsNamedWithItsStatus() throws Exception {
        int status;
        try (LocalRanks ranks = LocalRanks.start(3, dir, shell(Map.of(1, "echo fine", 2, "echo broken; exit 3")))) {
            status = ranks.await(0, 30);
        }
        assertEquals(1, status);
        assertEquals("ofinet-perf: rank 2 failed (exit status 3)\n", err.toString(StandardCharsets.UTF_8));
        assertEquals("fine\nbroken\n", out.toString(StandardCharsets.UTF_8), "a failed rank's log is printed too");
    }

    @Test
    void rankZerosFailureStandsWhenEveryOtherRankSucceeds() throws Exception {
        try (LocalRanks ranks = LocalRanks.start(2, dir, shell(Map.of(1, "true")))) {
            assertEquals(1, ranks.await(1, 30));
        }
    }

    @Test
    void aRankPastTheTimeoutFailsTheRunAndClosingKillsItWithItsChildren() throws Exception {
        ProcessHandle child;
        try (LocalRanks ranks = LocalRanks.start(2, dir, shell(Map.of(1, "sleep 300 & echo $! > "
                + dir.resolve("grandchild") + "; wait")))) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!Files.exists(dir.resolve("grandchild")) || Files.readString(dir.resolve("grandchild")).isBlank()) {
                assertTrue(System.nanoTime() < deadline, "the rank did not start its child");
                Thread.sleep(10);
            }
            child = ProcessHandle.of(Long.parseLong(Files.readString(dir.resolve("grandchild")).trim())).orElseThrow();
            assertEquals(1, ranks.await(0, 1));
            assertEquals("ofinet-perf: rank 1 did not finish in time\n", err.toString(StandardCharsets.UTF_8));
        }
        assertTrue(child.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).get() != null,
                "the rank's own child outlived the run");
    }
}
