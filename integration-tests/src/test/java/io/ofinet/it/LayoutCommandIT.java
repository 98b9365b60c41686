package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's layout command, run as a newcomer runs it. */
class LayoutCommandIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private record Result(int status, String out) {
    }

    private static Result run(Path outFile, String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(ROOT.resolve("bin/ofinet-layout").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectErrorStream(true).redirectOutput(outFile.toFile());
        pb.environment().put("OFINET_CQ_READ_COUNT", "8");
        Process process = pb.start();
        try {
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "bin/ofinet-layout did not finish in 120 s");
            return new Result(process.exitValue(), Files.readString(outFile, StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void printsTheLoopbackExampleWithSources(@TempDir Path dir) throws Exception {
        Result result = run(dir.resolve("out.txt"), "config/examples/loopback-tcp.json");
        assertEquals(0, result.status(), result.out());
        assertTrue(result.out().contains("layout: config/examples/loopback-tcp.json (file)"), result.out());
        assertTrue(result.out().contains("provider tcp;ofi_rxm"), result.out());
        assertTrue(result.out().contains("environment OFINET_CQ_READ_COUNT"), result.out());
        assertTrue(result.out().contains("device 0 data rail 0: tcp;ofi_rxm domain lo"), result.out());
        assertTrue(!result.out().contains("WARNING"), "no JVM warnings: " + result.out());
    }

    @Test
    void rejectsAnInvalidLayoutWithStatusTwo(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"devices\": [{\"dataRails\": []}]}");
        Result result = run(dir.resolve("out.txt"), bad.toString());
        assertEquals(2, result.status(), result.out());
        assertTrue(result.out().contains(bad + ": devices[0].dataRails: a device needs at least one"
                + " data rail"), result.out());
    }
}
