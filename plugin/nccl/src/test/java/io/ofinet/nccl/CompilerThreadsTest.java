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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompilerThreadsTest {
    private final RecordingLog log = new RecordingLog();

    @Test
    void idleByDefaultANiceValueOnRequestAndOffLeavesTheThreads() {
        assertEquals(CompilerThreads.IDLE, CompilerThreads.priorityOf(null, log));
        assertEquals(CompilerThreads.IDLE, CompilerThreads.priorityOf(" ", log));
        assertEquals(CompilerThreads.IDLE, CompilerThreads.priorityOf(" Idle ", log));
        assertEquals(CompilerThreads.OFF, CompilerThreads.priorityOf("off", log));
        assertEquals(CompilerThreads.OFF, CompilerThreads.priorityOf(" OFF ", log));
        assertEquals(0, CompilerThreads.priorityOf("0", log));
        assertEquals(19, CompilerThreads.priorityOf("19", log));
        assertTrue(log.warnings.isEmpty(), log.warnings.toString());
        assertEquals("SCHED_IDLE", CompilerThreads.describe(CompilerThreads.IDLE));
        assertEquals("nice 19", CompilerThreads.describe(19));
    }

    @Test
    void anythingElseIsNamedInAWarningAndTheDefaultTaken() {
        for (String value : List.of("20", "-1", "low")) {
            log.warnings.clear();
            assertEquals(CompilerThreads.IDLE, CompilerThreads.priorityOf(value, log), value);
            assertEquals(List.of("OFINET_JIT_NICE=" + value + " is neither idle, off nor a nice value from 0 to 19:"
                    + " idle is taken"), log.warnings);
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
        Set<Integer> set = new TreeSet<>();
        int lowered = CompilerThreads.lower(tasks, tid -> {
            set.add(tid);
            return tid == 105 ? -1 : 0;
        });
        assertEquals(Set.of(101, 102, 105), set);
        assertEquals(2, lowered);
        assertEquals(0, CompilerThreads.lower(tasks, tid -> {
            throw new IllegalStateException("no setpriority");
        }));
    }

    @Test
    void whereSchedIdleIsRefusedNiceNineteenIsGivenAndSaid(@TempDir Path tasks) throws IOException {
        thread(tasks, "101", "C2 CompilerThre");
        thread(tasks, "102", "C1 CompilerThre");
        Map<Integer, Integer> set = new TreeMap<>();
        CompilerThreads.Setter refused = tid -> -1;
        IntFunction<CompilerThreads.Setter> nice = p -> tid -> {
            set.put(tid, p);
            return 0;
        };
        assertEquals("JIT: 2 compiler thread(s) at nice 19 from now on, after the warm-up (OFINET_JIT_NICE,"
                + " SCHED_IDLE refused)", CompilerThreads.lowerAll(tasks, CompilerThreads.IDLE,
                        p -> p == CompilerThreads.IDLE ? refused : nice.apply(p)));
        assertEquals(Map.of(101, 19, 102, 19), set);
        assertEquals("JIT: 2 compiler thread(s) at SCHED_IDLE from now on, after the warm-up (OFINET_JIT_NICE)",
                CompilerThreads.lowerAll(tasks, CompilerThreads.IDLE, p -> tid -> 0));
        assertEquals("JIT: 0 compiler thread(s) at nice 10 from now on, after the warm-up (OFINET_JIT_NICE)",
                CompilerThreads.lowerAll(tasks, 10, p -> refused), "a nice value refused is said, not replaced");
        assertEquals("JIT: 0 compiler thread(s) at SCHED_IDLE from now on, after the warm-up (OFINET_JIT_NICE)",
                CompilerThreads.lowerAll(tasks, CompilerThreads.IDLE, p -> refused), "both refused");
    }

    @Test
    void aTaskDirectoryThatCannotBeReadIsAnError(@TempDir Path dir) {
        assertThrows(IOException.class, () -> CompilerThreads.lower(dir.resolve("none"), tid -> 0));
    }

    @Test
    void theSetterGivesAThreadANiceValueOrSchedIdleAsTheKernelShowsThem() throws Throwable {
        onAThreadOfItsOwn(tid -> {
            int policy = statField(tid, POLICY_FIELD);
            assertEquals(0, CompilerThreads.setter(19).set(tid));
            assertEquals(19, statField(tid, NICE_FIELD));
            assertEquals(policy, statField(tid, POLICY_FIELD), "a nice value leaves the policy as it was");
        });
        onAThreadOfItsOwn(tid -> {
            assertEquals(0, CompilerThreads.setter(CompilerThreads.IDLE).set(tid));
            assertEquals(SCHED_IDLE, statField(tid, POLICY_FIELD));
        });
    }

    /** Fields of /proc's stat, counted from 1: its nice value and its scheduling policy. */
    private static final int NICE_FIELD = 19;
    private static final int POLICY_FIELD = 41;
    private static final int SCHED_IDLE = 5;

    interface OnThread {
        void run(int tid) throws Throwable;
    }

    /** Runs {@code check} with the id of a thread started for it, alive until the check is done. */
    private static void onAThreadOfItsOwn(OnThread check) throws Throwable {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        AtomicInteger tid = new AtomicInteger();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                tid.set(Integer.parseInt(Path.of("/proc/thread-self").toRealPath().getFileName().toString()));
                running.countDown();
                end.await();
            } catch (IOException e) {
                running.countDown(); // tid stays 0: the check fails
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            running.await();
            assertTrue(tid.get() > 0, "the thread read its id");
            check.run(tid.get());
        } finally {
            end.countDown();
            t.join();
        }
    }

    /** Field {@code field} (counted from 1) of thread {@code tid}'s stat, as a number. */
    private static int statField(int tid, int field) throws IOException {
        String stat = Files.readString(Path.of("/proc/self/task", Integer.toString(tid), "stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[field - 3]);
    }

    @Test
    void aJvmTheLibraryDidNotEnterKeepsItsCompilersAsTheyAre() throws IOException {
        Map<Integer, String> before = compilersPriority();
        assertFalse(before.isEmpty(), "this JVM has compiler threads");
        CompilerThreads.afterWarmUp(log);
        assertEquals(before, compilersPriority());
        assertTrue(log.infos.isEmpty() && log.warnings.isEmpty(), log.infos + " " + log.warnings);
    }

    /** This JVM's compiler threads and their priorities: nice value and scheduling policy. */
    private static Map<Integer, String> compilersPriority() throws IOException {
        Map<Integer, String> priority = new TreeMap<>();
        try (var threads = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : threads.toList()) {
                try {
                    if (CompilerThreads.isCompiler(Files.readString(t.resolve("comm")).strip())) {
                        int tid = Integer.parseInt(t.getFileName().toString());
                        priority.put(tid, statField(tid, NICE_FIELD) + "/" + statField(tid, POLICY_FIELD));
                    }
                } catch (IOException e) {
                    // a thread that ended meanwhile
                }
            }
        }
        return priority;
    }

    private static void thread(Path tasks, String tid, String comm) throws IOException {
        Files.writeString(Files.createDirectory(tasks.resolve(tid)).resolve("comm"), comm + "\n");
    }
}
