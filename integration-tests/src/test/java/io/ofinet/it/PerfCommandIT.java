package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The README's main command, bin/ofinet-perf, run as a newcomer runs it, over real tcp on loopback. */
@Timeout(300)
class PerfCommandIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void pingpongPrintsAVerifiedTableAndWritesCsv(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.txt");
        Path csv = dir.resolve("results.csv");
        Process p = new ProcessBuilder(ROOT.resolve("bin/ofinet-perf").toString(), "pingpong", "--sizes=8,4K,64K",
                "--warmup", "10", "--iters", "20", "--reps", "2", "--csv", csv.toString(), "--stats", "--plot", dir.resolve("plot.svg").toString())
                .directory(ROOT.toFile()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(240, TimeUnit.SECONDS), "ofinet-perf did not finish");
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), text);
            assertTrue(text.contains("#        size        count     type    time(us)  algbw(GB/s)  busbw(GB/s)  #wrong"
                    + "  disp(%)"), text);
            assertTrue(text.contains("# time: median of 2 repetitions"), text);
            assertTrue(text.contains("# the kernel's TCP congestion control: "
                    + Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip() + " "), text);
            assertTrue(!text.contains("WARNING"), "no JVM warnings: " + text);
            assertTrue(!text.contains("ofinet-perf: pingpong"), "no progress lines where stderr is a file: " + text);
            assertTrue(text.contains("\n        65536 "), "4K and 64K read as sizes: " + text);
            // 3 sizes of 10 warm-up and 2 x 20 timed round trips, after an untimed pass each.
            Matcher sent = Pattern.compile("# messagesSent +(\\d+)").matcher(text);
            assertTrue(sent.find() && Long.parseLong(sent.group(1)) >= 150, "statistics: " + text);
            assertTrue(text.contains("# droppedMalformed     0"), "nothing dropped: " + text);
            String svg = Files.readString(dir.resolve("plot.svg"), StandardCharsets.UTF_8);
            assertTrue(svg.contains("ofinet pingpong: tcp;ofi_rxm, 1 data rail on lo, data path"), "plot title: " + svg);
            assertTrue(Pattern.compile("<title>tcp;ofi_rxm, 1 data rail on lo, data path (FFM|JNA), \\d{4}-\\d{2}-\\d{2}"
                    + "</title>").matcher(svg).find(), "the legend names the run, not a file: " + svg);
            List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
            assertEquals("test,provider,ranks,size,count,type,time_us,algbw_gbs,busbw_gbs,wrong,disp_pct,reps,iters,"
                    + "redone", rows.get(0));
            assertEquals(4, rows.size(), rows.toString());
            for (String row : rows.subList(1, rows.size())) {
                String[] f = row.split(",");
                assertTrue(row.startsWith("pingpong,tcp;ofi_rxm,2,"), row);
                assertEquals("0", f[9], "no wrong elements: " + row);
                assertEquals("2", f[11], "repetitions: " + row);
                assertEquals("20", f[12], "iterations per repetition: " + row);
                int redone = Integer.parseInt(f[13]);
                // The budget: as many as the repetitions asked for, and at least 3.
                assertTrue(redone >= 0 && redone <= 3, "repetitions run again, within the budget: " + row);
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }
}
