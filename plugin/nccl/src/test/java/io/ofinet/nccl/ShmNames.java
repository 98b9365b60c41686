package io.ofinet.nccl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The names ofinet's shm endpoints leave in /dev/shm ({@code pid:n:n}), seen and removed by the driver's tests. */
final class ShmNames {
    private static final Pattern NAME = Pattern.compile("\\d+:\\d+:\\d+");

    private ShmNames() {
    }

    /** The names there now. */
    static Set<String> now() throws IOException {
        try (Stream<Path> names = Files.list(Path.of("/dev/shm"))) {
            return names.map(p -> p.getFileName().toString()).filter(n -> NAME.matcher(n).matches())
                    .collect(Collectors.toCollection(HashSet::new));
        }
    }

    /**
     * Removes the names made since {@code before} by processes that have ended (the driver's): a
     * live process's names, such as another build's on the same machine, stay.
     */
    static void removeNewSince(Set<String> before) throws IOException {
        Set<String> left = now();
        left.removeAll(before);
        for (String name : left) {
            if (!Files.isDirectory(Path.of("/proc", name.substring(0, name.indexOf(':'))))) {
                Files.deleteIfExists(Path.of("/dev/shm", name));
            }
        }
    }
}
