package io.ofinet.plugin.ofi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * A count, kept in a file under the module's {@code target/} across runs (until {@code mvn clean}),
 * of the runs of rows that may be skipped for a hazard beyond ofinet's reach and of the skips
 * themselves: a skip that makes them more than one in five (or more than one while fewer than five
 * runs are counted) fails instead, naming the count.
 */
final class SkipLedger {
    private final Path file;

    SkipLedger(Path file) {
        this.file = file;
    }

    /** A row ran to its end. */
    synchronized void ran(String row) throws IOException {
        append("ran " + row);
    }

    /**
     * A row is to be skipped for {@code reason}: counted, then refused with an AssertionError when
     * skips would pass one in five.
     */
    synchronized void skipped(String row, String reason) throws IOException {
        append("skipped " + row + ": " + reason);
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        long skips = lines.stream().filter(l -> l.contains(" skipped ")).count();
        long runs = lines.size();
        System.out.println("SKIPPED-HAZARD count: " + skips + " of " + runs + " runs (" + file.toAbsolutePath() + ")");
        if (skips > Math.max(1, runs / 5)) {
            throw new AssertionError(skips + " of " + runs + " runs counted in " + file.toAbsolutePath()
                    + " were skipped for the hazard, more than one in five: " + reason);
        }
    }

    private void append(String line) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, Instant.now() + " " + line.replace('\n', ' ') + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
