package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The launch people use: Open MPI's {@code mpirun} starts one {@code bin/ofinet-perf} per rank on
 * localhost, which meet through {@code --rendezvous} and run a verified ring allreduce over tcp.
 * Four ranks on two cores need {@code --oversubscribe --bind-to none}; as root, {@code
 * --allow-run-as-root}. {@code bin/install-deps} installs {@code openmpi-bin}.
 */
@Timeout(300)
class MpirunIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void mpirunRunsAVerifiedAllreduce(int ranks, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.txt");
        Path rendezvous = Files.createDirectory(dir.resolve("rendezvous"));
        List<String> command = new ArrayList<>(List.of("mpirun", "--oversubscribe", "--bind-to", "none", "-np",
                Integer.toString(ranks)));
        if ("root".equals(System.getProperty("user.name"))) {
            command.add(1, "--allow-run-as-root");
        }
        command.addAll(List.of(ROOT.resolve("bin/ofinet-perf").toString(), "allreduce", "--rendezvous",
                rendezvous.toString(), "--sizes", "1K,1M", "--untimed", "200", "--warmup", "5", "--iters", "20",
                "--reps", "2"));
        Process p = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(240, TimeUnit.SECONDS), "mpirun did not finish");
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), text);
            assertTrue(text.contains("# ofinet-perf allreduce, " + ranks + " ranks"), text);
            if (Runtime.version().feature() >= 25) {
                assertTrue(text.contains(", sum vector;"), "bin/ofinet-perf sums through the Vector API: " + text);
            }
            for (String size : List.of("1024", "1048576")) {
                Matcher row = Pattern.compile("(?m)^ +" + size + " +\\d+ +float +[0-9.]+ +[0-9.]+ +[0-9.]+ +(\\d+) ")
                        .matcher(text);
                assertTrue(row.find(), "a row for " + size + " B: " + text);
                assertEquals("0", row.group(1), "wrong elements at " + size + " B: " + text);
            }
            assertTrue(!text.contains("ofinet-perf: allreduce"), "no progress lines in a pipe: " + text);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
