package io.ofinet.tools.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    private final List<Figure> figures = new ArrayList<>();

    /** {@code program}'s figures in rounds 1, 2, ...; null: no figure in that round. */
    private void add(String program, Measure measure, long size, String... values) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                figures.add(new Figure(program, "tcp", measure, size, i + 1, new BigDecimal(values[i])));
            }
        }
    }

    private List<String> pointToPoint(boolean baseline, boolean table) throws IOException {
        return pointToPoint(baseline, table, null);
    }

    private List<String> pointToPoint(boolean baseline, boolean table, String plugin) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new PointToPointReport(Figures.of(figures), 3, List.of(8L, 4096L), List.of(1048576L), baseline, table, plugin,
                new PrintStream(bytes, true, StandardCharsets.UTF_8)).print("tcp");
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private void latencyAndBandwidth() {
        add("fi_pingpong", Measure.LATENCY, 8, "7.10", "7.00", "7.20");
        add("ofinet", Measure.LATENCY, 8, "7.500", "8.000", "7.700");
        add("fi_pingpong", Measure.LATENCY, 4096, "9.00", "9.10", "9.20");
        add("ofinet", Measure.LATENCY, 4096, "9.000", null, "9.900");
        // GB/s: writedata fastest in rounds 1 and 3, send in round 2.
        add("writedata", Measure.BANDWIDTH, 1048576, "4.0000", "3.0000", "4.2000");
        add("write-msg", Measure.BANDWIDTH, 1048576, "3.9000", "3.1000", "4.0000");
        add("rendezvous", Measure.BANDWIDTH, 1048576, "3.8000", "3.2000", "3.9000");
        add("announced", Measure.BANDWIDTH, 1048576, "3.7000", "3.3000", "3.8000");
        add("send", Measure.BANDWIDTH, 1048576, "3.6000", "3.5000", "3.7000");
        add("ofinet", Measure.BANDWIDTH, 1048576, "3.6000", "3.5000", "4.2000");
    }

    @Test
    void theLatencyTableHasMediansRatiosAndPairedRatios() throws IOException {
        latencyAndBandwidth();
        List<String> lines = pointToPoint(false, false);
        assertTrue(lines.get(0).startsWith("== tcp one-way latency (medians of 3 runs; in odd rounds the C programs"
                + " first, then this tree; in even rounds the reverse)"), lines.get(0));
        assertEquals(String.format("%-10s %16s %16s %8s %8s", "size", "fi_pingpong us", "ofinet us", "ratio",
                "paired"), lines.get(1));
        // 7.7 / 7.1 = 1.08; rounds 7.5/7.1, 8.0/7.0, 7.7/7.2: 1.056, 1.143, 1.069.
        assertEquals(String.format("%-10s %16s %16s %8s %8s", 8, "7.10", "7.700", "1.08", "1.07"), lines.get(2));
        // ofinet gave no figure in round 2: the median of two, their mean, and no paired ratio.
        assertEquals(String.format("%-10s %16s %16s %8s %8s", 4096, "9.10", "9.450", "1.04", "-"), lines.get(3));
    }

    @Test
    void theBandwidthTableTakesEachRoundsFastestCScheme() throws IOException {
        latencyAndBandwidth();
        List<String> lines = pointToPoint(false, false);
        int header = section(lines, "== tcp bandwidth");
        // Medians 4000.0 (writedata, the fastest) ... ofinet 3600.0: ratio 0.90. Each round's fastest: 4.0, 3.5,
        // 4.2: ofinet 0.90, 1.00, 1.00 -> paired 1.00; vs rendezvous 0.947, 1.094, 1.077 -> 1.08; vs announced
        // 0.973, 1.061, 1.105 -> 1.06.
        assertEquals(String.format("%-10s %14s %14s %15s %14s %10s %14s %8s %8s %8s %8s", 1048576, "4000.0", "3900.0",
                "3800.0", "3700.0", "3600.0", "3600.0", "0.90", "1.00", "1.08", "1.06"), lines.get(header + 2));
        assertTrue(lines.get(header + 3).startsWith("(ratio: ofinet ÷ the fastest of the five C schemes"));
    }

    @Test
    void theBaselineAndTheTableAddTheirColumnsAndDashesWhereTheyGaveNothing() throws IOException {
        latencyAndBandwidth();
        add("baseline", Measure.LATENCY, 8, "7.100", "7.000", "7.200");
        add("table", Measure.LATENCY, 8, "8.000", "8.000", "7.700");
        List<String> lines = pointToPoint(true, true);
        assertTrue(lines.get(0).contains("then this tree, then the baseline;"), lines.get(0));
        assertEquals(String.format("%-10s %16s %16s %8s %8s %16s %8s %8s %10s", 8, "7.10", "7.700", "1.08", "1.07",
                "7.100", "1.00", "1.00", "1.08"), lines.get(2));
        assertEquals(String.format("%-10s %16s %16s %8s %8s %16s %8s %8s %10s", 4096, "9.10", "9.450", "1.04", "-",
                "-", "-", "-", "-"), lines.get(3));
        int table = section(lines, "== tcp through the table");
        // Table ÷ Java each round: 8/7.5, 8/8, 7.7/7.7: 1.067, 1, 1.
        assertEquals(String.format("%-10s %10s %14s %14s %12s", 8, "us", "7.700", "8.000", "1.00"), lines.get(table + 2));
        assertEquals(String.format("%-10s %10s %14s %14s %12s", 1048576, "GB/s", "3.6000", "-", "-"),
                lines.get(table + 4));
    }

    @Test
    void anotherPluginStandsBesideTheTableWithThePairedRatioOfTheTableToIt() throws IOException {
        latencyAndBandwidth();
        add("table", Measure.LATENCY, 8, "8.000", "8.000", "7.700");
        add("plugin", Measure.LATENCY, 8, "16.000", "20.000", "15.400");
        add("table", Measure.BANDWIDTH, 1048576, "4.0000", "3.0000", "4.4000");
        add("plugin", Measure.BANDWIDTH, 1048576, "5.0000", "3.0000", "4.0000");
        List<String> lines = pointToPoint(false, true, "/opt/peer/libnccl-net-ofi.so");
        int table = section(lines, "== tcp through the table");
        String row = "%-10s %10s %14s %14s %12s %14s %12s";
        assertEquals(String.format(row, "size", "measure", "java", "table", "table/java", "plugin", "table/plugin"),
                lines.get(table + 1));
        // Table ÷ plugin each round: 8/16, 8/20, 7.7/15.4: 0.5, 0.4, 0.5.
        assertEquals(String.format(row, 8, "us", "7.700", "8.000", "1.00", "16.000", "0.50"), lines.get(table + 2));
        assertEquals(String.format(row, 4096, "us", "9.450", "-", "-", "-", "-"), lines.get(table + 3));
        // Table ÷ plugin each round: 4.0/5.0, 3.0/3.0, 4.4/4.0: 0.8, 1, 1.1; table ÷ Java 1.11, 0.86, 1.05.
        assertEquals(String.format(row, 1048576, "GB/s", "3.6000", "4.0000", "1.05", "4.0000", "1.00"),
                lines.get(table + 4));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("(plugin: /opt/peer/libnccl-net-ofi.so in the same C"
                + " driver")), String.join("\n", lines));
        int slow = lines.indexOf("== tcp launches at the slow speed, of 3 per program and size");
        assertEquals("latency 8: fi_pingpong 0/3 ofinet 0/3 table 0/3 plugin 0/3 (3/3)", lines.get(slow + 1));
    }

    @Test
    void theSlowLaunchesAreCountedForEveryProgram() throws IOException {
        latencyAndBandwidth();
        // The table is slow in every launch at 8 B: against its own fastest launch, none.
        add("table", Measure.LATENCY, 8, "15.0", "15.5", "16.0");
        List<String> lines = pointToPoint(false, true);
        int slow = lines.indexOf("== tcp launches at the slow speed, of 3 per program and size");
        assertEquals("latency 8: fi_pingpong 0/3 ofinet 0/3 table 0/3 (3/3)", lines.get(slow + 1));
        assertEquals("latency 4096: fi_pingpong 0/3 ofinet 0/2 table -", lines.get(slow + 2));
        // write-msg's 3.1 GB/s is within 3/4 of its own best (4.0), not of the fastest launch of all (4.2).
        assertEquals("bandwidth 1048576: writedata 1/3 write-msg 0/3 (1/3) rendezvous 0/3 announced 0/3 send 0/3 ofinet 0/3"
                + " table -", lines.get(slow + 3));
        assertEquals("drained 1048576: ofinet - table -", lines.get(slow + 4));
        assertTrue(lines.get(slow + 5).startsWith("(slow: a launch more than 4/3"), lines.get(slow + 5));
    }

    @Test
    void theDrainedWindowIsPairedWithTheSlidingOneFromJavaAndThroughTheTable() throws IOException {
        latencyAndBandwidth();
        add("ofinet", Measure.DRAINED, 1048576, "1.8000", "3.5000", "2.1000");
        add("table", Measure.BANDWIDTH, 1048576, "3.0000", "3.0000", "3.0000");
        add("table", Measure.DRAINED, 1048576, "3.0000", "2.7000", "2.4000");
        List<String> lines = pointToPoint(false, true);
        int drained = section(lines, "== tcp a window drained in order");
        assertEquals(String.format("%-10s %14s %14s %8s %14s %14s %8s", "size", "java sliding", "java drained",
                "paired", "table sliding", "table drained", "paired"), lines.get(drained + 1));
        // Drained ÷ sliding each round: Java 1.8/3.6, 3.5/3.5, 2.1/4.2: 0.5, 1, 0.5; the table 1, 0.9, 0.8.
        assertEquals(String.format("%-10s %14s %14s %8s %14s %14s %8s", 1048576, "3.6000", "2.1000", "0.50", "3.0000",
                "2.7000", "0.90"), lines.get(drained + 2));
        int table = section(lines, "== tcp through the table");
        // Table ÷ Java each round: 3/1.8, 2.7/3.5, 2.4/2.1: 1.667, 0.771, 1.143.
        assertEquals(String.format("%-10s %10s %14s %14s %12s", 1048576, "drained", "2.1000", "2.7000", "1.14"),
                lines.get(table + 5));
        int slow = lines.indexOf("== tcp launches at the slow speed, of 3 per program and size");
        // Java's 1.8 and 2.1 are below 3/4 of its best (3.5); the table's 2.4 only below 3/4 of Java's best.
        assertEquals("drained 1048576: ofinet 2/3 table 0/3 (1/3)", lines.get(slow + 4));
    }

    @Test
    void aBaselinesDrainedWindowIsComparedWithThisTrees() throws IOException {
        latencyAndBandwidth();
        add("ofinet", Measure.DRAINED, 1048576, "1.8000", "3.5000", "2.1000");
        add("baseline", Measure.DRAINED, 1048576, "4.2000", "4.2000", "4.2000");
        List<String> lines = pointToPoint(true, false);
        int drained = section(lines, "== tcp a window drained in order");
        assertEquals(String.format("%-10s %14s %14s %8s %14s %10s", 1048576, "3.6000", "2.1000", "0.50", "4.2000",
                "0.50"), lines.get(drained + 2));
        assertEquals(Measure.DRAINED, Measure.of("drained"));
        assertEquals(Measure.DRAINED_PLACEMENT, Measure.DRAINED.placement());
    }

    @Test
    void theAllreduceTablesPairOfinetWithOpenMpi() throws IOException {
        add("mpi", Measure.ALLREDUCE, 1048576, "2.000", "2.200", "1.800");
        add("ofinet", Measure.ALLREDUCE, 1048576, "2.2000", "2.2000", "2.2000");
        add("mpi", Measure.EXCHANGE, 1048576, "3.000", null, "3.000");
        add("ofinet", Measure.EXCHANGE, 1048576, "3.3000", "3.0000", "3.3000");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new AllreduceReport(Figures.of(figures), 3, false, new PrintStream(bytes, true, StandardCharsets.UTF_8))
                .print(List.of(1048576L), List.of(1048576L));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(String.format("%-10s %18s %18s %8s %8s", "size", "MPI busbw GB/s", "ofinet busbw GB/s", "ratio",
                "paired"), lines.get(1));
        // Rounds 1.1, 1.0, 1.22: paired 1.10.
        assertEquals(String.format("%-10s %18s %18s %8s %8s", 1048576, "2.000", "2.2000", "1.10", "1.10"), lines.get(2));
        assertEquals(String.format("%-10s %18s %18s %8s %8s", 1048576, "3.000", "3.3000", "1.10", "-"), lines.get(6));
    }

    @Test
    void launchesAreCountedByTheCpusPlacementAndComparedWhereBothRanNear() throws IOException {
        add("fi_pingpong", Measure.LATENCY, 8, "7.0", "7.1", "15.0");
        add("fi_pingpong", Measure.LATENCY_PLACEMENT, 8, "30", "31", "170");
        add("ofinet", Measure.LATENCY, 8, "7.5", "16.0", "7.4");
        add("ofinet", Measure.LATENCY_PLACEMENT, 8, "30", "165", "31");
        // Round 2: writedata ran far, so send is the round's fastest near scheme.
        add("writedata", Measure.BANDWIDTH, 1048576, "4.0", "2.0", "4.3");
        add("writedata", Measure.BANDWIDTH_PLACEMENT, 1048576, "30", "170", "30");
        add("send", Measure.BANDWIDTH, 1048576, "3.9", "3.95", "4.0");
        add("send", Measure.BANDWIDTH_PLACEMENT, 1048576, "30", "30", "30");
        add("ofinet", Measure.BANDWIDTH, 1048576, "3.8", "3.9", "1.9");
        add("ofinet", Measure.BANDWIDTH_PLACEMENT, 1048576, "30", "30", "175");
        List<String> lines = pointToPoint(false, false);
        int header = section(lines, "== tcp launches by the CPUs' placement");
        assertEquals("== tcp launches by the CPUs' placement (a cache line from CPU 0 to CPU 1: 30 ns at the nearest;"
                + " far above 90 ns)", lines.get(header));
        // Both near in round 1 only: 7.5 / 7.0. The 4096 B size has no placed launch: no line.
        assertEquals("latency 8: fi_pingpong far 1/3 slow 0/2; ofinet far 1/3 slow 0/2; ofinet ÷ fi_pingpong 1.07 (1);",
                lines.get(header + 1));
        // Near rounds 1 and 2: 3.8 / 4.0 and 3.9 / 3.95, median 0.97.
        assertEquals("bandwidth 1048576: writedata far 1/3 slow 0/2; send far 0/3 slow 0/3; ofinet far 1/3 slow 0/2;"
                + " ofinet ÷ the fastest C scheme 0.97 (2);", lines.get(header + 2));
        assertTrue(lines.get(header + 3).startsWith("(far: "), lines.get(header + 3));
    }

    @Test
    void withoutPlacementsThereIsNoPlacementReport() throws IOException {
        latencyAndBandwidth();
        assertTrue(pointToPoint(false, false).stream().noneMatch(l -> l.contains("placement")));
    }

    @Test
    void aFileThatIsNotThereIsNamedAsMissing() {
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine command = CompareReport.commandLine(new CompareReport(new PrintStream(
                new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
        command.setErr(new java.io.PrintWriter(err, true));
        assertEquals(1, command.execute("figures", "--program", "ofinet", "--provider", "shm", "--round", "1",
                "/nonexistent/pingpong.csv"));
        assertEquals("ofinet-compare: no such file: /nonexistent/pingpong.csv", err.toString().trim());
    }

    /** The index of the first line of {@code lines} that starts with {@code heading}; none fails the test. */
    private static int section(List<String> lines, String heading) {
        return lines.indexOf(lines.stream().filter(l -> l.startsWith(heading)).findFirst().orElseThrow());
    }
}
