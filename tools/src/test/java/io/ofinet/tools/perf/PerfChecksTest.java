package io.ofinet.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** What ofinet-perf refuses before it starts, how it checks a message, and the median it reports. */
class PerfChecksTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "sendrecv --window 0          | --window must be at least 1: 0",
        "drained --window 0           | --window must be at least 1: 0",
        "pingpong --factor 1          | --factor must be at least 2: 1",
        "allreduce --chunk 2          | --chunk must hold whole float32s, one at least: 2 bytes",
        "pingpong --sizes 1G          | size 1073741824 is above the largest this tool runs, 536870912 bytes",
        "pingpong -e 4G               | --max-bytes 4294967296 is above the largest this tool runs, 536870912 bytes",
        "allgather --np 4 --sizes 256M | size 268435456 is above the largest this tool runs, 134217728 bytes for an"
            + " allgather of 4 ranks",
        "pingpong -b 16M -e 8M        | no size to run from --min-bytes to --max-bytes",
        "pingpong --timeout 0         | --timeout must be at least 1 s: 0",
        "pingpong --plot out.PNG.pdf  | --plot out.PNG.pdf: the plot's file name must end in .png or .svg",
        "pingpong --plot out.pdf      | --plot out.pdf: the plot's file name must end in .png or .svg",
        "pingpong --csv /nonexistent/dir/r.csv | /nonexistent/dir/r.csv: no directory /nonexistent/dir",
    })
    void aRunThatCannotWorkIsRefusedBeforeItStarts(String args, String message) {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new OfinetPerf());
        command.setErr(new PrintWriter(err, true));
        assertEquals(2, command.execute(args.trim().split(" +")), err.toString());
        assertTrue(err.toString().startsWith(message), err.toString());
    }

    @Test
    void anAllgathersLimitCountsTheLaunchersRanksAndOnlyRankZeroChecksItsOutputs() {
        OfinetPerf o = new OfinetPerf();
        new CommandLine(o).parseArgs("allgather", "--sizes", "256M", "--csv", "/nonexistent/dir/r.csv");
        PerfOptionChecks.check(o);
        CommandLine.ParameterException e = assertThrows(CommandLine.ParameterException.class,
                () -> PerfOptionChecks.checkRun(o, 1, 5));
        assertEquals("size 268435456 is above the largest this tool runs, 107374182 bytes for an allgather of 5"
                + " ranks", e.getMessage());
        OfinetPerf small = new OfinetPerf();
        new CommandLine(small).parseArgs("allgather", "--sizes", "1M", "--csv", "/nonexistent/dir/r.csv");
        PerfOptionChecks.checkRun(small, 1, 5); // rank 1 writes no CSV
        assertThrows(CommandLine.ParameterException.class, () -> PerfOptionChecks.checkRun(small, 0, 5));
    }

    @Test
    void everyByteOfAMessageIsCheckedAndOneNotReceivedIsWrong() {
        ByteBuffer b = ByteBuffer.allocateDirect(64).order(java.nio.ByteOrder.nativeOrder());
        for (int size : new int[] {1, 3, 7, 64}) {
            Workloads.fillMessage(b, 1, size);
            assertEquals(0, Workloads.wrongMessage(b, 1, size));
            assertEquals(size / 4 + size % 4, Workloads.wrongMessage(b, 0, size), "another rank's: " + size);
            Workloads.poison(b, size);
            assertEquals(size / 4 + size % 4, Workloads.wrongMessage(b, 1, size), "nothing received: " + size);
        }
        Workloads.fillMessage(b, 1, 64);
        Workloads.poison(b, 8);
        assertEquals(2, Workloads.wrongMessage(b, 1, 8), "what an earlier, larger message left is no receive");
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(2.0, PerfBench.median(new double[] {1, 2, 9}));
        assertEquals(1.5, PerfBench.median(new double[] {1, 2}));
        assertEquals(3.0, PerfBench.median(new double[] {1, 2, 4, 100}));
    }

    @Test
    void aFileThatCannotBeReadIsOneLineNamingIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path missing = dir.resolve("missing.csv");
        assertEquals(missing.toString(), assertThrows(java.nio.file.NoSuchFileException.class,
                () -> Plot.read(missing)).getMessage(), "reported as 'ofinet-plot: no such file: PATH'");
        java.nio.file.Path garbled = dir.resolve("garbled.csv");
        java.nio.file.Files.writeString(garbled, String.join(",", CsvTable.PERF_COLUMNS) + "\n"
                + "pingpong,tcp,2,eight" + ",".repeat(CsvTable.PERF_COLUMNS.size() - 4) + "\n");
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> Plot.read(garbled));
        assertTrue(e.getMessage().startsWith(garbled + ", row 1: not a number"), e.getMessage());
    }
}
