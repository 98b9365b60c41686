package io.ofinet.tools.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Ranks 1 to np - 1 of a run on this host, each a child JVM started by rank 0 (this process). Each
 * writes to its own log in the rendezvous directory, printed once it has finished so that the ranks'
 * lines do not interleave. Closing it kills whatever of them still runs, with their children.
 */
final class LocalRanks implements AutoCloseable {
    private final List<Process> children = new ArrayList<>();
    private final Path dir;
    /** {@link #await} ran: each rank's log was printed. */
    private boolean awaited;

    private LocalRanks(Path dir) {
        this.dir = dir;
    }

    /** Starts ranks 1 to {@code np - 1}, rank r with the command {@code command.apply(r)}. */
    static LocalRanks start(int np, Path dir, IntFunction<List<String>> command) throws IOException {
        LocalRanks ranks = new LocalRanks(dir);
        boolean started = false;
        try {
            for (int r = 1; r < np; r++) {
                ranks.children.add(new ProcessBuilder(command.apply(r)).redirectErrorStream(true)
                        .redirectOutput(ranks.log(r).toFile()).start());
            }
            started = true;
            return ranks;
        } finally {
            if (!started) {
                ranks.close(); // the ranks started before the one that failed
            }
        }
    }

    private Path log(int rank) {
        return dir.resolve("rank" + rank + ".log");
    }

    /**
     * Waits up to {@code timeoutSeconds} for each rank in turn, prints its log (but for blank lines and
     * the JVM's warnings) and says which rank failed or ran out of time.
     *
     * @return {@code status} when every rank exited 0, else 1
     */
    int await(int status, int timeoutSeconds) throws IOException, InterruptedException {
        awaited = true;
        for (int i = 0; i < children.size(); i++) {
            int r = i + 1;
            Process child = children.get(i);
            if (!child.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                System.err.println("ofinet-perf: rank " + r + " did not finish in time");
                status = 1;
            } else if (child.exitValue() != 0) {
                System.err.println("ofinet-perf: rank " + r + " failed (exit status " + child.exitValue() + ")");
                status = 1;
            }
            printLog(r);
        }
        return status;
    }

    private void printLog(int rank) throws IOException {
        if (Files.exists(log(rank))) {
            for (String line : Files.readAllLines(log(rank), StandardCharsets.UTF_8)) {
                if (!line.isBlank() && !line.startsWith("WARNING")) {
                    System.out.println(line);
                }
            }
        }
    }

    /** Ends the ranks still running; when rank 0 failed before it waited for them, prints what they said. */
    @Override
    public void close() {
        for (Process child : children) {
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly();
        }
        if (!awaited) {
            for (int r = 1; r <= children.size(); r++) {
                try {
                    children.get(r - 1).waitFor(5, TimeUnit.SECONDS);
                    printLog(r);
                } catch (IOException | InterruptedException e) {
                    System.err.println("ofinet-perf: rank " + r + "'s log: " + e);
                }
            }
        }
    }

    /** Removes the ranks' directory (their logs and handles); what cannot be removed stays. */
    static void deleteDirectory(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // A temporary directory left behind: nothing to report for a benchmark's result.
        }
    }
}
