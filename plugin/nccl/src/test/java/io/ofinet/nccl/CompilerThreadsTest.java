package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompilerThreadsTest {
    private final RecordingLog log = new RecordingLog();

    @Test
    void theNiceValueIsNineteenByDefaultAndOffLeavesTheThreads() {
        assertEquals(19, CompilerThreads.niceOf(null, log));
        assertEquals(19, CompilerThreads.niceOf(" ", log));
        assertEquals(CompilerThreads.OFF, CompilerThreads.niceOf("off", log));
        assertEquals(CompilerThreads.OFF, CompilerThreads.niceOf(" OFF ", log));
        assertEquals(0, CompilerThreads.niceOf("0", log));
        assertEquals(10, CompilerThreads.niceOf("10", log));
        assertTrue(log.warnings.isEmpty(), log.warnings.toString());
    }

    @Test
    void anythingElseIsNamedInAWarningAndTheDefaultTaken() {
        for (String value : List.of("20", "-1", "low")) {
            log.warnings.clear();
            assertEquals(19, CompilerThreads.niceOf(value, log), value);
            assertEquals(List.of("OFINET_JIT_NICE=" + value + " is neither off nor a nice value from 0 to 19: 19 is"
                    + " taken"), log.warnings);
        }
    }

    @Test
    void onlyHotSpotsCompilerThreadsAreLoweredAndAFailureIsNotCounted(@TempDir Path tasks) throws IOException {
        thread(tasks, "101", "C2 CompilerThre");
        thread(tasks, "102", "C1 CompilerThre");
        thread(tasks, "103", "nccl_driver");
        thread(tasks, "104", "ofinet-warm-up");
        thread(tasks, "105", "C2 CompilerThre");
        thread(tasks, "self", "C1 CompilerThre"); // not a thread id
        Files.createDirectory(tasks.resolve("106")); // a thread that ended: no comm
        Map<Integer, Integer> set = new TreeMap<>();
        int lowered = CompilerThreads.lower(tasks, 19, (tid, nice) -> {
            set.put(tid, nice);
            return tid == 105 ? -1 : 0;
        });
        assertEquals(Map.of(101, 19, 102, 19, 105, 19), set);
        assertEquals(2, lowered);
        assertEquals(0, CompilerThreads.lower(tasks, 19, (tid, nice) -> {
            throw new IllegalStateException("no setpriority");
        }));
    }

    @Test
    void aTaskDirectoryThatCannotBeReadIsAnError(@TempDir Path dir) {
        assertThrows(IOException.class, () -> CompilerThreads.lower(dir.resolve("none"), 19, (tid, nice) -> 0));
    }

    @Test
    void setpriorityGivesAThreadTheNiceValueAsTheKernelShowsIt() throws Throwable {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("nice-test").start(() -> {
            running.countDown(); // its native name is set before it runs
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            running.await();
            int tid = tidOf("nice-test");
            assertEquals(0, CompilerThreads.setpriority().setNice(tid, 19));
            assertEquals(19, niceOf(Path.of("/proc/self/task", Integer.toString(tid))));
        } finally {
            end.countDown();
            t.join();
        }
    }

    @Test
    void aJvmTheLibraryDidNotEnterKeepsItsCompilersAsTheyAre() throws IOException {
        Map<Integer, Integer> before = compilersNice();
        assertFalse(before.isEmpty(), "this JVM has compiler threads");
        CompilerThreads.afterWarmUp(log);
        assertEquals(before, compilersNice());
        assertTrue(log.infos.isEmpty() && log.warnings.isEmpty(), log.infos + " " + log.warnings);
    }

    /** This JVM's compiler threads and their nice values. */
    private static Map<Integer, Integer> compilersNice() throws IOException {
        Map<Integer, Integer> nice = new TreeMap<>();
        try (var threads = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : threads.toList()) {
                try {
                    if (CompilerThreads.isCompiler(Files.readString(t.resolve("comm")).strip())) {
                        nice.put(Integer.parseInt(t.getFileName().toString()), niceOf(t));
                    }
                } catch (IOException e) {
                    // a thread that ended meanwhile
                }
            }
        }
        return nice;
    }

    /** The id of this process's thread named {@code name}. */
    private static int tidOf(String name) throws IOException {
        try (var threads = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : threads.toList()) {
                if (Files.readString(t.resolve("comm")).strip().equals(name)) {
                    return Integer.parseInt(t.getFileName().toString());
                }
            }
        }
        throw new IllegalStateException("no thread named " + name);
    }

    private static void thread(Path tasks, String tid, String comm) throws IOException {
        Files.writeString(Files.createDirectory(tasks.resolve(tid)).resolve("comm"), comm + "\n");
    }

    /** A thread's nice value: the 19th field of its stat, counted after its name in parentheses. */
    private static int niceOf(Path thread) throws IOException {
        String stat = Files.readString(thread.resolve("stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[16]);
    }
}
