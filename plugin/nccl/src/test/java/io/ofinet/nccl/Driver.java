package io.ofinet.nccl;

import io.ofinet.fabric.testing.TestTime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The C test driver ({@code src/test/c}, built by Maven into target/c-tests) run as NCCL's host
 * process would be: the library found through {@code LD_LIBRARY_PATH}, a bounded time, and
 * everything it started killed at the end. psm's {@code IPATH_NO_BACKTRACE}/{@code HFI_NO_BACKTRACE}
 * are removed from its environment: the library must set them itself. So is {@code OFINET_JAVA_HOME}:
 * the library starts the runtime bundled beside it, as it ships, unless a test names another; and
 * {@code NCCL_NET_PLUGIN}, which would make the driver load another library. The
 * tests' time factor goes to it as {@code NCCL_DRIVER_TIME_FACTOR}, which scales its slack bounds.
 */
record Driver(int exitCode, String output) {
    static final Path LIBRARY_DIR = Path.of(System.getProperty("ofinet.nccl.lib", "target/nccl/lib"));
    static final Path EXECUTABLE = Path.of(System.getProperty("ofinet.nccl.driver", "target/c-tests/nccl_driver"));

    /**
     * Runs the driver with {@code args} in {@code dir}, with extra environment {@code env}, killed
     * after {@code unscaled} scaled by the tests' time factor ({@link TestTime}).
     */
    static Driver run(Path dir, Map<String, String> env, Duration unscaled, String... args)
            throws IOException, InterruptedException {
        return run(dir, env, unscaled, List.of(), args);
    }

    /** As {@link #run(Path, Map, Duration, String...)}, the driver started by the command {@code prefix}. */
    static Driver run(Path dir, Map<String, String> env, Duration unscaled, List<String> prefix, String... args)
            throws IOException, InterruptedException {
        Duration bound = Duration.ofMillis(TestTime.ms(unscaled.toMillis()));
        List<String> command = new ArrayList<>(prefix);
        command.add(EXECUTABLE.toAbsolutePath().toString());
        command.addAll(List.of(args));
        Path log = dir.resolve("driver-" + String.join("-", args).replace("/", "_") + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().remove("IPATH_NO_BACKTRACE");
        pb.environment().remove("HFI_NO_BACKTRACE");
        pb.environment().put("LD_LIBRARY_PATH", LIBRARY_DIR.toAbsolutePath().toString());
        pb.environment().remove("OFINET_JAVA_HOME");
        pb.environment().remove("NCCL_NET_PLUGIN");
        pb.environment().put("NCCL_DRIVER_TIME_FACTOR", Double.toString(TestTime.FACTOR));
        pb.environment().putAll(env);
        Process process = pb.start();
        boolean ended = process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        if (!ended) {
            process.destroyForcibly();
            process.waitFor();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8) + crashReports(dir)
                + (ended ? "" : "\n(killed after " + bound.toSeconds() + " s)");
        return new Driver(ended ? process.exitValue() : -1, output);
    }

    /** A JVM that crashed inside the driver leaves its report in the working directory. */
    private static String crashReports(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (DirectoryStream<Path> reports = Files.newDirectoryStream(dir, "hs_err_pid*.log")) {
            for (Path report : reports) {
                List<String> lines = Files.readAllLines(report);
                sb.append("\n--- ").append(report.getFileName()).append('\n')
                        .append(String.join("\n", lines.subList(0, Math.min(60, lines.size()))));
            }
        }
        return sb.toString();
    }

    /** A one-rail layout on loopback: "tcp" ({@code tcp;ofi_rxm} on lo) or "shm". */
    static Path layout(Path dir, String provider) throws IOException {
        String rail = provider.equals("shm") ? "{\"provider\": \"shm\", \"domain\": \"shm\"}"
                : "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}";
        Path file = dir.resolve(provider + ".json");
        Files.writeString(file, "{\"devices\": [{\"name\": \"" + provider + "\", \"dataRails\": [" + rail + "]}]}");
        return file;
    }
}
