package io.ofinet.tools.perf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;

/**
 * ofinet-perf's options checked together before anything starts, each failure a usage error naming
 * the option: a run that cannot work is refused before its ranks connect, not after.
 */
final class PerfOptionChecks {
    /**
     * The largest buffer a run uses: the largest size (times the ranks, for allgather). The tool
     * holds both of a size's buffers in one direct ByteBuffer, whose capacity is an int.
     */
    static final long MAX_BUFFER_BYTES = 512L << 20;

    private PerfOptionChecks() {
    }

    static void check(OfinetPerf o) {
        require(o, o.np >= 2, "--np must be at least 2");
        require(o, o.reps >= 1 && (o.iters == null || o.iters >= 1) && o.warmup >= 0 && o.untimed >= 0,
                "--reps and --iters must be at least 1, --warmup and --untimed at least 0");
        require(o, o.window >= 1, "--window must be at least 1: " + o.window);
        require(o, o.factor >= 2, "--factor must be at least 2: " + o.factor);
        require(o, o.timeoutSeconds >= 1, "--timeout must be at least 1 s: " + o.timeoutSeconds);
        require(o, o.chunk >= 4 && o.chunk % 4 == 0, "--chunk must hold whole float32s, one at least: " + o.chunk
                + " bytes");
        require(o, o.exchangeMax >= 0, "--exchange-max must be at least 0: " + o.exchangeMax);
        require(o, o.head == null || (o.head >= 0 && o.head % 4 == 0), "--head must hold whole float32s: " + o.head
                + " bytes");
    }

    /**
     * What depends on the run's ranks, checked once they are known: {@code ranks} of them, this
     * one {@code rank}. The outputs only where they are written, on rank 0.
     */
    static void checkRun(OfinetPerf o, int rank, int ranks) {
        if (rank == 0) {
            String plotName = o.plot == null ? ".png" : o.plot.getFileName().toString().toLowerCase(Locale.ROOT);
            require(o, plotName.endsWith(".png") || plotName.endsWith(".svg"), "--plot " + o.plot
                    + ": the plot's file name must end in .png or .svg");
            for (Path out : new Path[] {o.csv, o.plot}) {
                Path dir = out == null ? null : out.toAbsolutePath().getParent();
                require(o, dir == null || Files.isDirectory(dir), out + ": no directory " + dir);
            }
        }
        long perSize = o.test.equals("allgather") ? ranks : 1;
        String limit = MAX_BUFFER_BYTES / perSize + " bytes" + (perSize > 1 ? " for an allgather of " + ranks
                + " ranks" : "");
        if (o.sizes == null || o.sizes.isEmpty()) {
            require(o, o.maxBytes <= MAX_BUFFER_BYTES / perSize, "--max-bytes " + o.maxBytes + " is above the"
                    + " largest this tool runs, " + limit);
        }
        List<Long> sizes = o.sizes();
        require(o, !sizes.isEmpty(), "no size to run from --min-bytes to --max-bytes");
        for (long size : sizes) {
            require(o, size <= MAX_BUFFER_BYTES / perSize, "size " + size + " is above the largest this tool runs, "
                    + limit);
        }
    }

    private static void require(OfinetPerf o, boolean holds, String otherwise) {
        if (!holds) {
            throw new CommandLine.ParameterException(o.spec == null ? new CommandLine(o) : o.spec.commandLine(), otherwise);
        }
    }
}
