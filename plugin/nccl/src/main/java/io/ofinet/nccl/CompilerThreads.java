package io.ofinet.nccl;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;

/**
 * HotSpot's JIT compiler threads as the host's guests (docs/NCCL.md, "The compilers after the
 * warm-up"). Once the warm-up has compiled the data path, the compilations still to come (NCCL's own
 * first calls, recompilations after traps) are the JVM's background work: in a JVM the library
 * created, the warm-up gives its compiler threads the priority {@code OFINET_JIT_NICE} asks for, by
 * default Linux's {@code SCHED_IDLE} policy (below nice 19), so that they take the CPU time the ranks
 * leave and do not take a rank's core from it. {@code OFINET_JIT_NICE=off} leaves them as they are.
 */
final class CompilerThreads {
    /** The environment variable: {@code idle}, a nice value from 0 to 19, or {@code off}. */
    static final String VARIABLE = "OFINET_JIT_NICE";
    /** The policy {@code SCHED_IDLE} ({@code idle}): the lowest there is, below every nice value. */
    static final int IDLE = 20;
    /** The priority by default. */
    static final int DEFAULT = IDLE;
    /** No change ({@code off}). */
    static final int OFF = -1;
    /** setpriority(2)'s {@code which} for one thread's id, on Linux. */
    private static final int PRIO_PROCESS = 0;
    /** sched_setscheduler(2)'s policy {@code SCHED_IDLE}, on Linux. */
    private static final int SCHED_IDLE = 5;

    /**
     * Gives one thread the priority it was made for ({@link #setter}): 0 on success, else -1, as
     * sched_setscheduler(2) and setpriority(2).
     */
    @FunctionalInterface
    interface Setter {
        int set(int tid) throws Throwable;
    }

    private CompilerThreads() {
    }

    /**
     * The priority {@code value} of {@code OFINET_JIT_NICE} asks for: {@link #IDLE} for {@code idle}
     * and when unset, the number for 0 to 19, {@link #OFF} for {@code off}. Anything else is named in a
     * warning and the default taken.
     */
    static int priorityOf(String value, NcclDoor.Log log) {
        if (value == null || value.isBlank()) {
            return DEFAULT;
        }
        String v = value.trim();
        if (v.equalsIgnoreCase("off")) {
            return OFF;
        }
        if (v.equalsIgnoreCase("idle")) {
            return IDLE;
        }
        try {
            int nice = Integer.parseInt(v);
            if (nice >= 0 && nice <= 19) {
                return nice;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        log.warn(VARIABLE + "=" + value + " is neither idle, off nor a nice value from 0 to 19: idle is taken");
        return DEFAULT;
    }

    /** How a priority is written in the library's lines. */
    static String describe(int priority) {
        return priority == IDLE ? "SCHED_IDLE" : "nice " + priority;
    }

    /** Whether a thread named {@code comm} (as /proc shows it, 15 characters at most) is one of HotSpot's compilers. */
    static boolean isCompiler(String comm) {
        return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
    }

    /**
     * Gives every compiler thread among {@code tasks} (a /proc task directory: a directory per
     * thread id, with its {@code comm}) the priority {@code setter} gives.
     *
     * @return how many took it
     * @throws IOException when {@code tasks} cannot be read
     */
    static int lower(Path tasks, Setter setter) throws IOException {
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
                if (isCompiler(comm) && set(setter, tid)) {
                    lowered++;
                }
            }
        }
        return lowered;
    }

    private static boolean set(Setter setter, int tid) {
        try {
            return setter.set(tid) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Gives this process's compiler threads the priority {@code OFINET_JIT_NICE} asks for, in a JVM
     * the library created and entered, and says so at INFO; in a host's JVM, whose threads are the
     * host's, or a JVM the library did not enter (a test's), nothing.
     */
    static void afterWarmUp(NcclDoor.Log log) {
        if (!NcclBridge.inCreatedJvm()) {
            return;
        }
        int priority = priorityOf(System.getenv(VARIABLE), log);
        if (priority == OFF) {
            return;
        }
        try {
            log.info(lowerAll(Path.of("/proc/self/task"), priority, CompilerThreads::setter));
        } catch (Throwable t) {
            log.info("JIT: the compiler threads keep their priority: " + t.getMessage());
        }
    }

    /**
     * Gives the compiler threads among {@code tasks} {@code priority} through the setter {@code
     * setters} makes for it; where {@code SCHED_IDLE} was refused for every one (a seccomp filter, a
     * libc without the call), nice 19 instead. What was done, as the line at INFO says it.
     */
    static String lowerAll(Path tasks, int priority, IntFunction<Setter> setters) throws IOException {
        int lowered = lower(tasks, setters.apply(priority));
        String fallback = "";
        if (lowered == 0 && priority == IDLE) {
            int niced = lower(tasks, setters.apply(19));
            if (niced > 0) { // none there at all (-Xint) is no refusal
                priority = 19;
                lowered = niced;
                fallback = ", SCHED_IDLE refused";
            }
        }
        return "JIT: " + lowered + " compiler thread(s) at " + describe(priority) + " from now on, after the warm-up ("
                + VARIABLE + fallback + ")";
    }

    /**
     * What gives a thread {@code priority}: libc's sched_setscheduler(2) with {@code SCHED_IDLE} for
     * {@link #IDLE}, else its setpriority(2). Only the call that priority needs is linked, as linking
     * generates classes.
     */
    @SuppressWarnings("restricted")
    static Setter setter(int priority) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        if (priority == IDLE) {
            MethodHandle policy = linker.downcallHandle(libc.find("sched_setscheduler").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                            ValueLayout.ADDRESS));
            MemorySegment noPriority = Arena.ofAuto().allocate(ValueLayout.JAVA_INT); // struct sched_param, zero
            return tid -> (int) policy.invokeExact(tid, SCHED_IDLE, noPriority);
        }
        MethodHandle nice = linker.downcallHandle(libc.find("setpriority").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT));
        return tid -> (int) nice.invokeExact(PRIO_PROCESS, tid, priority);
    }
}
