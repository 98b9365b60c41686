package io.ofinet.fabric.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class on this JVM's class path, with a hard time bound. Closing it
 * kills it and everything it started, whatever state it is in; so does the bound running out.
 * Output goes to a file, kept for failure messages. A JVM that crashes writes its crash report
 * beside that file, not into its working directory (often a test's temporary one, deleted after the
 * test), and {@link #output()} ends with the report's summary and stacks.
 */
public final class ChildJvm implements AutoCloseable {
    /** Lines of a crash report that {@link #output()} appends at most: its summary and the crashing thread's stacks. */
    private static final int CRASH_REPORT_LINES = 80;

    private final Process process;
    private final Path output;
    private final Path crashReport;
    private final long deadlineNanos;

    private ChildJvm(Process process, Path output, Path crashReport, Duration bound) {
        this.process = process;
        this.output = output;
        this.crashReport = crashReport;
        this.deadlineNanos = System.nanoTime() + bound.toNanos();
    }

    /** What to start. */
    public static final class Spec {
        private final String mainClass;
        private final List<String> args = new ArrayList<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private final List<String> prefix = new ArrayList<>();
        private final Map<String, String> env = new HashMap<>();
        private final List<String> unsetEnv = new ArrayList<>();
        private Duration bound = Duration.ofSeconds(60);
        private String javaHome = System.getProperty("java.home");
        private Path directory;

        public Spec(Class<?> mainClass) {
            this.mainClass = mainClass.getName();
        }

        public Spec args(String... values) {
            args.addAll(List.of(values));
            return this;
        }

        public Spec jvmArgs(String... values) {
            jvmArgs.addAll(List.of(values));
            return this;
        }

        public Spec env(String name, String value) {
            env.put(name, value);
            return this;
        }

        /** Removes a variable the child would otherwise inherit. */
        public Spec unsetEnv(String name) {
            unsetEnv.add(name);
            return this;
        }

        /** Sets a variable, or removes it where {@code value} is empty: a row of a table of settings. */
        public Spec envOrUnset(String name, String value) {
            return value.isEmpty() ? unsetEnv(name) : env(name, value);
        }

        /** Runs the JVM through a command, e.g. {@code ip netns exec ns1}. */
        public Spec prefix(String... command) {
            prefix.addAll(List.of(command));
            return this;
        }

        /** The hard bound, scaled by {@link TestTime}'s factor: the child is killed when it runs longer. */
        public Spec bound(Duration limit) {
            this.bound = limit;
            return this;
        }

        /** The child's working directory, where it leaves any files it writes there (default: this one's). */
        public Spec directory(Path dir) {
            this.directory = dir;
            return this;
        }

        public Spec javaHome(String home) {
            this.javaHome = home;
            return this;
        }

        public ChildJvm start() throws IOException {
            List<String> command = new ArrayList<>(prefix);
            command.add(javaHome + File.separator + "bin" + File.separator + "java");
            if (javaHome.equals(System.getProperty("java.home")) && Runtime.version().feature() >= 21) {
                // JNA and FFM load native code: allowed explicitly, so the child prints no warning.
                command.add("--enable-native-access=ALL-UNNAMED");
            }
            Path output = Files.createTempFile("ofinet-child-", ".log");
            Path crashReport = output.resolveSibling(output.getFileName() + ".hs_err");
            command.add("-XX:ErrorFile=" + crashReport);
            // The child's own deadlines scale as this JVM's do.
            command.add("-D" + TestTime.PROPERTY + "=" + TestTime.FACTOR);
            command.addAll(jvmArgs);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(mainClass);
            command.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            if (directory != null) {
                pb.directory(directory.toFile());
            }
            pb.environment().putAll(env);
            unsetEnv.forEach(pb.environment()::remove);
            return new ChildJvm(pb.start(), output, crashReport, Duration.ofMillis(TestTime.ms(bound.toMillis())));
        }
    }

    /** What a receiving and a sending peer printed, each under its side's name. */
    public record PairOutput(String receiver, String sender) {
        /** Both outputs, each under its side's name, for a failure message. */
        public String both() {
            return "receiver:\n" + receiver + "\nsender:\n" + sender;
        }
    }

    /**
     * Starts a receiving peer, then a sending one, and waits for both within their bounds. As soon as
     * one exits with a status other than 0 or runs out of its bound, both are stopped and an
     * AssertionError names that side and carries both outputs; a peer waiting for a dead partner
     * does not hold the test to its own bound.
     */
    public static PairOutput runPair(Spec receiver, Spec sender) throws IOException, InterruptedException {
        try (ChildJvm r = receiver.start(); ChildJvm s = sender.start()) {
            boolean running;
            String failed;
            do {
                // Whether either runs, read before their states: a failure read after both ended is final.
                running = r.process.isAlive() || s.process.isAlive();
                String receiverFailed = r.failure("the receiver");
                failed = receiverFailed != null ? receiverFailed : s.failure("the sender");
                if (failed == null && running) {
                    Thread.sleep(20);
                }
            } while (failed == null && running);
            if (failed != null) {
                // Leaving the block stops both.
                throw new AssertionError(failed + "\n" + new PairOutput(r.output(), s.output()).both());
            }
            return new PairOutput(r.output(), s.output());
        }
    }

    /** Why this child failed, under {@code side}'s name: a status other than 0, or its bound run out; else null. */
    private String failure(String side) {
        if (process.isAlive()) {
            return System.nanoTime() - deadlineNanos > 0 ? side + " exceeded its time bound" : null;
        }
        int status = process.exitValue();
        return status == 0 ? null : side + " exited with " + status;
    }

    /**
     * Waits for the child to exit within the bound and returns its status; kills it and throws
     * when the bound runs out.
     */
    public int waitFor() throws InterruptedException {
        long remaining = deadlineNanos - System.nanoTime();
        if (!process.waitFor(Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
            close();
            throw new AssertionError("child JVM exceeded its time bound; output:\n" + output());
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Kills the child at once (SIGKILL), as a crash would, and removes the names its shm endpoints
     * left in /dev/shm ({@code <pid>:...}; shm removes them in its own SIGTERM handler, which a
     * SIGKILL skips): a later process that gets the same pid could not open a shm endpoint (FI_EBUSY).
     */
    public void kill() {
        List<ProcessHandle> killed = new ArrayList<>(process.descendants().toList());
        killed.add(process.toHandle());
        killed.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle handle : killed) {
            try {
                handle.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                continue; // still there: its names are in use
            }
            removeShmNames(handle.pid());
        }
    }

    private static void removeShmNames(long pid) {
        try (DirectoryStream<Path> names = Files.newDirectoryStream(Path.of("/dev/shm"), pid + ":*")) {
            for (Path name : names) {
                Files.deleteIfExists(name);
            }
        } catch (IOException e) {
            // No /dev/shm, or a name gone meanwhile: nothing to clean.
        }
    }

    /** Everything the child printed so far, and the start of its crash report when it crashed. */
    public String output() {
        String printed;
        try {
            printed = Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            printed = "(output unreadable: " + e + ")";
        }
        if (!Files.exists(crashReport)) {
            return printed;
        }
        try (var lines = Files.lines(crashReport, StandardCharsets.ISO_8859_1)) {
            return printed + "\n--- the first " + CRASH_REPORT_LINES + " lines of " + crashReport + " ---\n"
                    + String.join("\n", lines.limit(CRASH_REPORT_LINES).toList()) + "\n";
        } catch (IOException e) {
            return printed + "\n(crash report " + crashReport + " unreadable: " + e + ")\n";
        }
    }

    /**
     * Kills the child if it still runs; if a signal ended it already (a test's own {@code kill -KILL}),
     * removes the shm names it left, as {@link #kill()} does.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (process.exitValue() > 128) {
            removeShmNames(process.pid());
        }
    }
}
