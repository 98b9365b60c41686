package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

    /** A rank that writes its own pid and its child's, then loops until killed. */
    private String looping(String name) {
        Path file = dir.resolve(name);
        return "sleep 300 & echo $$ $! > '" + file + ".tmp'; mv '" + file + ".tmp' '" + file + "';"
                + " while true; do sleep 1; done";
    }

    /** The processes a {@link #looping} rank wrote, itself then its child, once it has written them. */
    private List<ProcessHandle> written(String name) {
        Path file = dir.resolve(name);
        long deadline = System.nanoTime() + 10_000_000_000L;
        try {
            while (!Files.exists(file)) {
                assertTrue(System.nanoTime() < deadline, "the rank did not start");
                Thread.sleep(10);
            }
            return Arrays.stream(Files.readString(file).trim().split(" "))
                    .map(pid -> ProcessHandle.of(Long.parseLong(pid)).orElseThrow()).toList();
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertEnds(ProcessHandle process, String what) throws Exception {
        assertTrue(process.onExit().completeOnTimeout(null, 10, TimeUnit.SECONDS).get() != null,
                what + " outlived the run");
    }

    @Test
    void aRankPastTheTimeoutFailsTheRunAndClosingKillsItWithItsChildren() throws Exception {
        List<ProcessHandle> processes;
        try (LocalRanks ranks = LocalRanks.start(2, dir, shell(Map.of(1, looping("pids"))))) {
            processes = written("pids");
            assertEquals(1, ranks.await(0, 1));
            assertEquals("ofinet-perf: rank 1 did not finish in time\n", err.toString(StandardCharsets.UTF_8));
        }
        assertEnds(processes.get(0), "the rank");
        assertEnds(processes.get(1), "the rank's own child");
    }

    @Test
    void aRankThatCannotStartStopsTheRanksStartedBeforeIt() throws Exception {
        List<List<ProcessHandle>> rank1 = new ArrayList<>();
        IntFunction<List<String>> command = r -> {
            if (r == 1) {
                return List.of("sh", "-c", looping("pids"));
            }
            rank1.add(written("pids")); // rank 1 runs before rank 2 fails to start
            return List.of(dir.resolve("no-such-program").toString());
        };
        assertThrows(IOException.class, () -> LocalRanks.start(3, dir, command));
        List<ProcessHandle> processes = rank1.get(0);
        assertEnds(processes.get(0), "rank 1");
        assertEnds(processes.get(1), "rank 1's child");
    }

    @Test
    void whenRankZeroFailsBeforeWaitingTheOthersLogsArePrintedAndTheDirectoryRemoved() throws Exception {
        Path ranksDir = Files.createDirectory(dir.resolve("run"));
        LocalRanks ranks = LocalRanks.start(2, ranksDir, shell(Map.of(1, "echo 'rank 1: the peer refused'")));
        // Rank 0 fails here, never reaching await, once rank 1 has said its line (however late it ran).
        Path log1 = ranksDir.resolve("rank1.log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(log1) && Files.readString(log1).contains("the peer refused"))
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        ranks.close();
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("rank 1: the peer refused"), out.toString());
        LocalRanks.deleteDirectory(ranksDir);
        assertTrue(!Files.exists(ranksDir));
    }
}
