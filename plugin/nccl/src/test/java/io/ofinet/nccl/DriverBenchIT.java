package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C driver's benchmarks through libnccl-net-ofinet.so's table run and report (figures, not timed
 * tests), and the watch on the JVM's compilers that keeps compilations out of what they time sees a
 * compiler waiting for a CPU. Every run of the driver is bounded by {@link Driver#run}.
 */
class DriverBenchIT {
    /**
     * The bench's watch on the compilers ({@code nccl_driver jitwatch}, no JVM): a thread named as
     * C2's, at SCHED_IDLE beside a busy thread on one CPU, runs almost never and is neither quiet nor
     * idle since a reading; a second one that blocks at once is quiet. Reading CPU time alone, the
     * watch called the starved thread quiet.
     */
    @Test
    void theJitWatchSeesACompilerThatWaitsForACpu(@TempDir Path dir) throws Exception {
        Driver d = Driver.run(dir, Map.of(), Duration.ofSeconds(60), "jitwatch");
        Assumptions.assumeFalse(d.output().contains("jitwatch: skipped"), d.output());
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(Pattern.compile("(?m)^jitwatch: starved for 2 s: ran [0-9.]+ ms, waited [0-9.]+ ms, runnable 1,"
                + " worked: yes, quiet: never$").matcher(d.output()).find(), d.output());
        assertTrue(Pattern.compile("(?m)^jitwatch: blocked: quiet after [0-9.]+ s$").matcher(d.output()).find(),
                d.output());
    }

    /** The crossing's benchmark runs and reports each round (a figure, not a timed test). */
    @Test
    @Timeout(600) // its Java twins are read to their end before their 120 s bound is looked at
    void theCrossingBenchmarkReportsEachRound(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(120), "crossing");
        assertEquals(0, d.exitCode(), d.output());
        assertEquals(15, Pattern.compile("(?m)^crossing: round \\d: [0-9.]+ ns per ").matcher(d.output()).results()
                .count(), d.output());
        // The same calls from Java: on the plugin, on the door, and on the door over a plugin that does nothing
        // (docs/NCCL.md, "The crossing").
        StringBuilder figures = new StringBuilder(d.output().lines().filter(l -> l.startsWith("crossing:")).toList()
                .toString());
        for (Twin twin : List.of(new Twin(CrossingJava.class, "java"), new Twin(CrossingDoor.class, "door"),
                new Twin(CrossingDoor.class, "alone", "idle"))) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    twin.main().getName()));
            command.addAll(twin.args());
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("OFINET_LAYOUT", layout.toString());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            String prefix = twin.prefix();
            assertEquals(15, Pattern.compile("(?m)^" + prefix + ": round \\d: [0-9.]+ ns per ").matcher(out).results()
                    .count(), out);
            figures.append('\n').append(out.lines().filter(l -> l.startsWith(prefix + ":")).toList());
        }
        System.out.println(figures);
    }

    /**
     * ofinet-perf's measurements through the table run and report every size (figures, not a timed
     * test), and Java allocates nothing per call through the table in steady state. The latency run
     * has the look at peer processes in /proc off: a duty every 250 ms per communicator, it
     * allocates on the calling thread by the second, not by the call, and on a loaded machine its
     * share of a measurement that took minutes read 4-8 bytes per call (driver_bench.c).
     */
    @Test
    void theBenchmarkThroughTheTableReportsAndAllocatesNothing(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver latency = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(),
                "OFINET_PEER_PROCESS_CHECK_DISABLE", "1"), Duration.ofSeconds(240), "bench", "latency", "8", "4096");
        assertEquals(0, latency.exitCode(), latency.output());
        assertEquals(2, Pattern.compile("(?m)^csv,\\d+,").matcher(latency.output()).results().count(),
                latency.output());
        assertTrue(latency.output().contains("ok: rank 0: no allocation per call through the table"), latency.output());
        assertTrue(latency.output().contains("ok: rank 1: no allocation per call through the table"), latency.output());
        Driver bandwidth = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(240),
                "bench", "bandwidth", "65536");
        assertEquals(0, bandwidth.exitCode(), bandwidth.output());
        assertTrue(bandwidth.output().contains("csv,65536,"), bandwidth.output());
        // How many repetitions the JIT gate ran again is reported beside each figure.
        assertTrue(Pattern.compile("(?m)^csv,65536,[0-9.]+,\\d+,[0-9.]+,\\d+$").matcher(bandwidth.output()).find(),
                bandwidth.output());
    }

    /**
     * The drained window through the table (16 sends posted, the oldest tested until done, then the
     * next, a 1-byte acknowledgement after each window) runs and reports every size, in the
     * bandwidth's CSV columns, each size's last message checked on the receiving rank (a figure,
     * not a timed test), after the kernel's TCP congestion control, which sets loopback TCP's pace.
     */
    @Test
    void theDrainedWindowThroughTheTableReportsEachSize(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver drained = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(240),
                "bench", "drained", "65536", "1048576");
        assertEquals(0, drained.exitCode(), drained.output());
        assertTrue(drained.output().contains("csv,size,gbps,iters,disp,redone"), drained.output());
        String congestionControl = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        assertTrue(drained.output().contains("# the kernel's TCP congestion control: " + congestionControl + " "),
                drained.output());
        for (String size : List.of("65536", "1048576")) {
            assertTrue(Pattern.compile("(?m)^csv," + size + ",[0-9.]+,\\d+,[0-9.]+,\\d+$").matcher(drained.output())
                    .find(), drained.output());
            assertTrue(drained.output().contains("ok: rank 1: " + size + " bytes arrived intact"), drained.output());
        }
        assertEquals(2, Pattern.compile("(?m)^csv,\\d+,").matcher(drained.output()).results().count(),
                drained.output());
        assertFalse(drained.output().contains("FAILED"), drained.output());
    }

    /** A Java twin of the driver's crossing: its main class, the prefix of its lines, its arguments. */
    private record Twin(Class<?> main, String prefix, List<String> args) {
        Twin(Class<?> main, String prefix, String... args) {
            this(main, prefix, List.of(args));
        }
    }
}
