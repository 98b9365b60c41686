package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.tools.perf.Plot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Plots drawn by gnuplot from ofinet-perf CSV files: a PNG and an SVG with what they must show. */
class PlotIT {
    private static final String HEADER = "test,provider,ranks,size,count,type,time_us,algbw_gbs,busbw_gbs,wrong,"
            + "disp_pct,reps,iters,redone\n";

    private static Path csv(Path dir, String name, String provider, double scale) throws IOException {
        StringBuilder rows = new StringBuilder(HEADER);
        for (long size = 8; size <= 1 << 20; size *= 8) {
            rows.append(String.format(java.util.Locale.ROOT,
                    "pingpong,%s,2,%d,%d,float,%.3f,%.4f,%.4f,0,5.0,5,1000,0%n", provider, size, size / 4,
                    scale * (3 + size / 1e4), size / 1e4, size / 1e4));
        }
        return Files.writeString(dir.resolve(name + ".csv"), rows.toString());
    }

    @Test
    void anSvgHasTheTitleTheAxesAndOneSeriesPerInput(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("latency.svg");
        Plot.render(out, "tcp;ofi_rxm, data path FFM, 2026-11-23", java.util.List.of(csv(dir, "tcp", "tcp;ofi_rxm", 10),
                csv(dir, "shm", "shm", 1)));
        String svg = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(svg.contains("ofinet pingpong: tcp;ofi_rxm, data path FFM, 2026-11-23"), "title");
        assertTrue(svg.contains("message size (bytes)"), "x axis label");
        assertTrue(svg.contains("one-way latency (us)"), "y axis label");
        Matcher series = Pattern.compile("<title>(tcp|shm) \\((tcp;ofi_rxm|shm)\\)</title>").matcher(svg);
        int found = 0;
        while (series.find()) {
            found++;
        }
        assertEquals(2, found, "one series per input: " + svg.substring(0, Math.min(svg.length(), 2000)));
    }

    @Test
    void aLabelNamesItsInputInTheLegendInsteadOfTheFile(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run.svg");
        Plot.render(out, "caption", java.util.List.of(csv(dir, "ofinet-perf123", "shm", 1), csv(dir, "tcp", "tcp", 2)),
                java.util.List.of("shm, data path FFM, 2026-11-27"));
        String svg = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(svg.contains("<title>shm, data path FFM, 2026-11-27</title>"), "the label: " + svg);
        assertTrue(!svg.contains("ofinet-perf123"), "not the file's name: " + svg);
        assertTrue(svg.contains("<title>tcp (tcp)</title>"), "an input without a label: its file: " + svg);
    }

    @Test
    void aPngIsAPngOfTheAskedSize(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("latency.png");
        Plot.render(out, "shm", java.util.List.of(csv(dir, "shm", "shm", 1)));
        byte[] png = Files.readAllBytes(out);
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, Arrays.copyOf(png, 8));
        ByteBuffer ihdr = ByteBuffer.wrap(png, 16, 8);
        assertEquals(1000, ihdr.getInt(), "width");
        assertEquals(600, ihdr.getInt(), "height");
        assertTrue(png.length > 5000, "something drawn: " + png.length + " bytes");
    }

    @Test
    void badInputsAreRefusedSayingWhy(@TempDir Path dir) throws Exception {
        Path notCsv = Files.writeString(dir.resolve("x.csv"), "hello\n");
        IOException e = assertThrows(IOException.class, () -> Plot.render(dir.resolve("a.svg"), "c",
                java.util.List.of(notCsv)));
        assertTrue(e.getMessage().contains("not an ofinet-perf CSV"), e.getMessage());
        IOException ext = assertThrows(IOException.class, () -> Plot.render(dir.resolve("a.pdf"), "c",
                java.util.List.of(csv(dir, "shm", "shm", 1))));
        assertTrue(ext.getMessage().contains("must end in .png or .svg"), ext.getMessage());
    }
}
