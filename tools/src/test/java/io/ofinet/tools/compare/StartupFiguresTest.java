package io.ofinet.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupFiguresTest {
    @TempDir
    Path dir;

    /** A launch's output: its log and table lines around the CSV lines, which are read by column name. */
    private Path driverOutput(String name, String csv) throws IOException {
        return Files.writeString(dir.resolve(name), "ok: rank 0: dlsym ncclNetPlugin_v12\n"
                + "  [nccl log level 3 flags 0x10 plugin.c:115] init: ofinet started in 812.3 ms: ...\n"
                + "# nccl_driver startup through ncclNetPlugin_v12: what a rank pays, from dlopen on\n"
                + " init                 ms     1575.494     1958.886  the first init (the JVM created)\n" + csv);
    }

    @Test
    void theDriversCsvLinesAreReadByColumnNameAndKeepTheirDigits() throws IOException {
        Path out = driverOutput("a.out", "csv,figure,rank,unit,value\ncsv,init,0,ms,1575.4936\n"
                + "csv,threads.init,1,count,20.0000\n");
        List<StartupFigures.RankFigure> figures = StartupFigures.fromDriver(out, "baseline", 2);
        assertEquals(List.of(new StartupFigures.RankFigure("baseline", 2, 0, "init", new BigDecimal("1575.4936"), "ms"),
                new StartupFigures.RankFigure("baseline", 2, 1, "threads.init", new BigDecimal("20.0000"), "count")),
                figures);
        assertEquals("baseline,2,0,init,1575.4936,ms", StartupFigures.line(figures.get(0)));
    }

    @Test
    void anOutputWithoutFiguresOrWithANegativeOneIsRefusedByName() throws IOException {
        IOException e = assertThrows(IOException.class,
                () -> StartupFigures.fromDriver(driverOutput("none.out", ""), "ofinet", 1));
        assertTrue(e.getMessage().contains("no line of nccl_driver startup's figures"), e.getMessage());
        Path noUnit = driverOutput("nounit.out", "csv,rank,figure,value\ncsv,0,init,1.0\n");
        e = assertThrows(IOException.class, () -> StartupFigures.fromDriver(noUnit, "ofinet", 1));
        assertTrue(e.getMessage().contains("no column unit"), e.getMessage());
        Path negative = driverOutput("neg.out", "csv,rank,figure,value,unit\ncsv,0,listen,-1.0000,ms\n");
        e = assertThrows(IOException.class, () -> StartupFigures.fromDriver(negative, "ofinet", 1));
        assertTrue(e.getMessage().contains("figure 1: a negative figure: listen -1.0000"), e.getMessage());
    }

    @Test
    void theFileRefusesAFigureInTwoUnitsAndTwoOfOneLaunch() throws IOException {
        Path units = Files.writeString(dir.resolve("u.csv"), "program,round,rank,figure,value,unit\n"
                + "ofinet,1,0,init,1.5,ms\nbaseline,1,0,init,1500,us\n");
        IOException e = assertThrows(IOException.class, () -> StartupFigures.read(units));
        assertTrue(e.getMessage().contains("init in ms and in us"), e.getMessage());
        Path twice = Files.writeString(dir.resolve("t.csv"), "program,round,rank,figure,value,unit\n"
                + "ofinet,1,0,init,1.5,ms\nofinet,1,0,init,1.6,ms\n");
        e = assertThrows(IOException.class, () -> StartupFigures.read(twice));
        assertTrue(e.getMessage().contains("two figures of ofinet, rank 0, init, round 1: 1.5 and 1.6"), e.getMessage());
    }

    @Test
    void theReportShowsEachRanksMedianInTheDriversOrderAndThePairedRatioToTheBaseline() throws IOException {
        List<StartupFigures.RankFigure> all = new ArrayList<>();
        // Three rounds; the baseline gave no threads.init.
        String[][] init = {{"1000.12345", "1100.0", "900.0"}, {"1200.0", "1300.0", "1250.0"}};
        String[][] baseInit = {{"2000.0", "2200.0", "1800.0"}, {"2400.0", "2600.0", "2500.0"}};
        for (int round = 1; round <= 3; round++) {
            for (int rank = 0; rank < 2; rank++) {
                all.add(rankFigure("ofinet", round, rank, "init", init[rank][round - 1], "ms"));
                all.add(rankFigure("ofinet", round, rank, "threads.init", "20.0000", "count"));
                all.add(rankFigure("baseline", round, rank, "init", baseInit[rank][round - 1], "ms"));
            }
        }
        StartupFigures figures = StartupFigures.of(all);
        assertEquals(Map.of("init", "ms", "threads.init", "count"), figures.units());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new StartupReport(figures, 3, true, null, new PrintStream(bytes, true, StandardCharsets.UTF_8)).print();
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.get(0).startsWith("== what a rank pays at start: nccl_driver startup, 2 ranks"), lines.get(0));
        assertEquals(String.format("%-16s %-5s %12s %12s %12s %12s %8s", "figure", "unit", "rank 0", "rank 1",
                "baseline 0", "baseline 1", "/base"), lines.get(1));
        // Medians to three decimals; every launch's ratio is 0.5 (0.50006 in round 1, rank 0).
        assertEquals(String.format("%-16s %-5s %12s %12s %12s %12s %8s", "init", "ms", "1000.123", "1250", "2000",
                "2500", "0.50"), lines.get(2));
        assertEquals(String.format("%-16s %-5s %12s %12s %12s %12s %8s", "threads.init", "count", "20", "20", "-", "-",
                "-"), lines.get(3));
        assertTrue(lines.get(4).startsWith("(/base: the paired ratio, "), lines.get(4));
    }

    @Test
    void anotherPluginStandsBesideTheBaselineWithItsOwnRatioAndDashesWhereItHasNoFigure() throws IOException {
        List<StartupFigures.RankFigure> all = new ArrayList<>();
        // Two rounds; the plugin gives no init split (init.jvm): the driver leaves it out for a plugin without a JVM.
        // The plugin's figures come first, as where ofinet's first launch failed: the rows keep ofinet's order.
        for (int round = 1; round <= 2; round++) {
            for (int rank = 0; rank < 2; rank++) {
                all.add(rankFigure("plugin", round, rank, "init", round == 1 ? "400" : "300", "ms"));
                all.add(rankFigure("plugin", round, rank, "listen", "100", "ms"));
                all.add(rankFigure("ofinet", round, rank, "init", "600", "ms"));
                all.add(rankFigure("ofinet", round, rank, "init.jvm", "150", "ms"));
                all.add(rankFigure("ofinet", round, rank, "listen", "50", "ms"));
                all.add(rankFigure("baseline", round, rank, "init", "1200", "ms"));
                all.add(rankFigure("baseline", round, rank, "init.jvm", "300", "ms"));
                all.add(rankFigure("baseline", round, rank, "listen", "50", "ms"));
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new StartupReport(StartupFigures.of(all), 2, true, "/opt/peer/libnccl-net-ofi.so",
                new PrintStream(bytes, true, StandardCharsets.UTF_8)).print();
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.get(1).startsWith("plugin: /opt/peer/libnccl-net-ofi.so"), lines.get(1));
        String row = "%-16s %-5s %12s %12s %12s %12s %8s %12s %12s %8s";
        assertEquals(String.format(row, "figure", "unit", "rank 0", "rank 1", "baseline 0", "baseline 1", "/base",
                "plugin 0", "plugin 1", "/plugin"), lines.get(2));
        // Paired over the four launches: 600/400 twice and 600/300 twice, median 1.75.
        assertEquals(String.format(row, "init", "ms", "600", "600", "1200", "1200", "0.50", "350", "350", "1.75"),
                lines.get(3));
        assertEquals(String.format(row, "init.jvm", "ms", "150", "150", "300", "300", "0.50", "-", "-", "-"),
                lines.get(4));
        assertEquals(String.format(row, "listen", "ms", "50", "50", "50", "50", "1.00", "100", "100", "0.50"),
                lines.get(5));
        assertTrue(lines.get(6).startsWith("(/base, /plugin: the paired ratio, "), lines.get(6));
    }

    private static StartupFigures.RankFigure rankFigure(String program, int round, int rank, String name, String value,
            String unit) {
        return new StartupFigures.RankFigure(program, round, rank, name, new BigDecimal(value), unit);
    }
}
