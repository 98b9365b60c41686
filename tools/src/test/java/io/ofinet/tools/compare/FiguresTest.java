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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FiguresTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void ofinetPerfsCsvIsReadByColumnNameInAnyOrder() throws IOException {
        // An older checkout's header (no redone), and the columns in another order.
        Path csv = write("pp.csv", "size,test,provider,ranks,count,type,algbw_gbs,time_us,busbw_gbs,wrong,disp_pct\n"
                + "8,pingpong,shm,2,2,float,0.0020,3.940,0.0020,0,1.5\n"
                + "1048576,sendrecv,shm,2,262144,float,5.1234,204.600,5.1234,0,0.4\n");
        List<Figure> figures = Figures.fromPerfCsv(csv, "baseline", "shm", 2);
        assertEquals(List.of(new Figure("baseline", "shm", Measure.LATENCY, 8, 2, new BigDecimal("3.940")),
                new Figure("baseline", "shm", Measure.BANDWIDTH, 1048576, 2, new BigDecimal("5.1234"))), figures);
        assertEquals("baseline,shm,latency,8,2,3.940,us", Figures.line(figures.get(0)));
        assertEquals("baseline,shm,bandwidth,1048576,2,5.1234,GB/s", Figures.line(figures.get(1)));
    }

    @Test
    void theAllreducesFigureIsItsBusbwAndTheExchangesItsAlgbw() throws IOException {
        Path csv = write("a.csv", "test,size,algbw_gbs,busbw_gbs\nallreduce,1048576,1.5,1.5000\n"
                + "exchange,1048576,2.25,1.1\n");
        List<Figure> figures = Figures.fromPerfCsv(csv, "ofinet", "tcp", 1);
        assertEquals(new BigDecimal("1.5000"), figures.get(0).value());
        assertEquals(Measure.ALLREDUCE, figures.get(0).measure());
        assertEquals(new BigDecimal("2.25"), figures.get(1).value());
        assertEquals(Measure.EXCHANGE, figures.get(1).measure());
    }

    @Test
    void theDrainedWindowsFigureIsItsAlgbw() throws IOException {
        Path csv = write("d.csv", "test,size,algbw_gbs,busbw_gbs\ndrained,2097152,3.25,3.25\n");
        List<Figure> figures = Figures.fromPerfCsv(csv, "ofinet", "tcp", 1);
        assertEquals(List.of(new Figure("ofinet", "tcp", Measure.DRAINED, 2097152, 1, new BigDecimal("3.25"))), figures);
        assertEquals("ofinet,tcp,drained,2097152,1,3.25,GB/s", Figures.line(figures.get(0)));
    }

    @Test
    void aMissingColumnIsNamed() throws IOException {
        Path csv = write("pp.csv", "test,provider,ranks,size,count,type,algbw_gbs\npingpong,shm,2,8,2,float,0.0020\n");
        IOException e = assertThrows(IOException.class, () -> Figures.fromPerfCsv(csv, "ofinet", "shm", 1));
        assertTrue(e.getMessage().contains("no column time_us"), e.getMessage());
        Path noSize = write("sr.csv", "test,algbw_gbs\nsendrecv,1.0\n");
        e = assertThrows(IOException.class, () -> Figures.fromPerfCsv(noSize, "ofinet", "shm", 1));
        assertTrue(e.getMessage().contains("no column size"), e.getMessage());
    }

    @Test
    void theFiguresFileHoldsRatesInGigabytesASecond() throws IOException {
        Path file = write("figures.csv", "program,provider,measure,size,round,value,unit\n"
                + "writedata,tcp,bandwidth,1048576,1,4123.5,MB/s\n"
                + "table,tcp,bandwidth,1048576,1,4.2000,GB/s\n"
                + "fi_pingpong,tcp,latency,8,2,7.11,us\n"
                + "fi_pingpong,tcp,latency-placement,8,2,37.2,ns\n"
                + "ofinet,tcp,bandwidth-placement,1048576,1,171.0,ns\n");
        Figures figures = Figures.read(file);
        assertEquals(Map.of(2, new BigDecimal("37.2")), figures.rounds("fi_pingpong", "tcp", Measure.LATENCY_PLACEMENT, 8));
        assertEquals(Map.of(1, new BigDecimal("171.0")),
                figures.rounds("ofinet", "tcp", Measure.BANDWIDTH_PLACEMENT, 1048576));
        assertEquals(Map.of(1, new BigDecimal("4.1235")), figures.rounds("writedata", "tcp", Measure.BANDWIDTH, 1048576));
        assertEquals(Map.of(1, new BigDecimal("4.2000")), figures.rounds("table", "tcp", Measure.BANDWIDTH, 1048576));
        assertEquals(new TreeMap<>(Map.of(2, new BigDecimal("7.11"))),
                figures.rounds("fi_pingpong", "tcp", Measure.LATENCY, 8));
        assertTrue(figures.rounds("ofinet", "tcp", Measure.LATENCY, 8).isEmpty());
    }

    @Test
    void aFigureItCannotReadIsNamed() throws IOException {
        String header = "program,provider,measure,size,round,value,unit\n";
        IOException e = assertThrows(IOException.class, () -> Figures.read(write("f.csv", header
                + "fi_pingpong,tcp,latency,8,1,7.11,MB/s\n")));
        assertTrue(e.getMessage().contains("figure 1: latency in MB/s"), e.getMessage());
        e = assertThrows(IOException.class, () -> Figures.read(write("f.csv", header
                + "fi_pingpong,tcp,latency,8,1,7.11,us\nfi_pingpong,tcp,latency,8,1,7.30,us\n")));
        assertTrue(e.getMessage().contains("two figures of fi_pingpong"), e.getMessage());
        e = assertThrows(IOException.class, () -> Figures.read(write("f.csv", header
                + "fi_pingpong,tcp,speed,8,1,7.11,us\n")));
        assertTrue(e.getMessage().contains("unknown measure speed"), e.getMessage());
        e = assertThrows(IOException.class, () -> Figures.read(write("f.csv", header
                + "fi_pingpong,tcp,latency-placement,8,1,37.2,us\n")));
        assertTrue(e.getMessage().contains("figure 1: latency-placement in us (it takes ns)"), e.getMessage());
        e = assertThrows(IOException.class, () -> Figures.read(write("f.csv", "program,provider,measure,size,value\n")));
        assertTrue(e.getMessage().contains("no column round, unit"), e.getMessage());
    }

    @Test
    void theFiguresCommandPrintsLinesAndNamesAMissingColumn() throws IOException {
        Path csv = write("pp.csv", "test,size,time_us\npingpong,8,3.5\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = CompareReport.commandLine(new CompareReport(new PrintStream(out, true, StandardCharsets.UTF_8)))
                .execute("figures", "--program", "ofinet", "--provider", "tcp", "--round", "3", csv.toString());
        assertEquals(0, status);
        assertEquals("ofinet,tcp,latency,8,3,3.5,us\n", out.toString(StandardCharsets.UTF_8));

        Path broken = write("sr.csv", "test,size,busbw_gbs\nsendrecv,8,3.5\n");
        java.io.StringWriter err = new java.io.StringWriter();
        status = CompareReport.commandLine(new CompareReport(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))).setErr(new java.io.PrintWriter(err))
                .execute("figures", "--program", "ofinet", "--provider", "tcp", "--round", "1", broken.toString());
        assertEquals(1, status);
        assertTrue(err.toString().contains("no column algbw_gbs"), err.toString());
    }
}
