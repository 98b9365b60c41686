package io.ofinet.nccl;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HotSpot's JIT compiler threads as the host's guests (docs/NCCL.md, "The compilers after the
 * warm-up"). Once the warm-up has compiled the data path, the compilations still to come (NCCL's own
 * first calls, recompilations after traps) are the JVM's background work: in a JVM the library
 * created, the warm-up gives its compiler threads the nice value {@code OFINET_JIT_NICE} asks for (19
 * by default, the lowest priority), so that they take the CPU time the ranks leave and do not take a
 * rank's core from it. {@code OFINET_JIT_NICE=off} leaves them as they are.
 */
final class CompilerThreads {
    /** The environment variable: {@code off}, or a nice value from 0 to 19. */
    static final String VARIABLE = "OFINET_JIT_NICE";
    /** The nice value by default: the lowest priority. */
    static final int NICE = 19;
    /** No change ({@code off}). */
    static final int OFF = -1;
    /** setpriority(2)'s {@code which} for one thread's id, on Linux. */
    private static final int PRIO_PROCESS = 0;

    /** Sets one thread's nice value: 0 on success, else -1, as setpriority(2). */
    @FunctionalInterface
    interface Setter {
        int setNice(int tid, int nice) throws Throwable;
    }

    private CompilerThreads() {
    }

    /**
     * The nice value {@code value} of {@code OFINET_JIT_NICE} asks for: {@link #OFF} for {@code off},
     * the number for 0 to 19, {@link #NICE} when unset. Anything else is named in a warning and the
     * default taken.
     */
    static int niceOf(String value, NcclDoor.Log log) {
        if (value == null || value.isBlank()) {
            return NICE;
        }
        String v = value.trim();
        if (v.equalsIgnoreCase("off")) {
            return OFF;
        }
        try {
            int nice = Integer.parseInt(v);
            if (nice >= 0 && nice <= 19) {
                return nice;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        log.warn(VARIABLE + "=" + value + " is neither off nor a nice value from 0 to 19: " + NICE + " is taken");
        return NICE;
    }

    /** Whether a thread named {@code comm} (as /proc shows it, 15 characters at most) is one of HotSpot's compilers. */
    static boolean isCompiler(String comm) {
        return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
    }

    /**
     * Gives every compiler thread among {@code tasks} (a /proc task directory: a directory per
     * thread id, with its {@code comm}) the nice value {@code nice} through {@code setter}.
     *
     * @return how many took it
     * @throws IOException when {@code tasks} cannot be read
     */
    static int lower(Path tasks, int nice, Setter setter) throws IOException {
        int lowered = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                String comm;
                int tid;
                try {
                    tid = Integer.parseInt(thread.getFileName().toString());
                    comm = Files.readString(thread.resolve("comm")).strip();
                } catch (NumberFormatException | IOException e) {
                    continue; // not a thread's directory, or a thread that has ended
                }
                if (isCompiler(comm) && set(setter, tid, nice)) {
                    lowered++;
                }
            }
        }
        return lowered;
    }

    private static boolean set(Setter setter, int tid, int nice) {
        try {
            return setter.setNice(tid, nice) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Gives this process's compiler threads the nice value {@code OFINET_JIT_NICE} asks for, in a JVM
     * the library created and entered, and says so at INFO; in a host's JVM, whose threads are the
     * host's, or a JVM the library did not enter (a test's), nothing.
     */
    static void afterWarmUp(NcclDoor.Log log) {
        if (!NcclBridge.inCreatedJvm()) {
            return;
        }
        int nice = niceOf(System.getenv(VARIABLE), log);
        if (nice == OFF) {
            return;
        }
        try {
            int lowered = lower(Path.of("/proc/self/task"), nice, setpriority());
            log.info("JIT: " + lowered + " compiler thread(s) at nice " + nice + " from now on, after the warm-up ("
                    + VARIABLE + ")");
        } catch (Throwable t) {
            log.info("JIT: the compiler threads keep their priority: " + t.getMessage());
        }
    }

    /** libc's setpriority(2) on one thread. */
    @SuppressWarnings("restricted")
    static Setter setpriority() {
        Linker linker = Linker.nativeLinker();
        MethodHandle h = linker.downcallHandle(linker.defaultLookup().find("setpriority").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT));
        return (tid, nice) -> (int) h.invokeExact(PRIO_PROCESS, tid, nice);
    }
}
