package io.ofinet.tools.compare;

import static io.ofinet.tools.compare.Stats.cell;
import static io.ofinet.tools.compare.Stats.median;
import static io.ofinet.tools.compare.Stats.paired;
import static io.ofinet.tools.compare.Stats.ratio;
import static io.ofinet.tools.compare.Stats.ratioCell;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The tables of {@code bin/ofinet-compare allreduce}: ofinet's allreduce against Open MPI's {@code
 * MPI_Allreduce} (busbw), and the exchange, one step of it, against {@code MPI_Sendrecv} (algbw), on
 * tcp with two ranks; {@code baseline}: a baseline checkout ran too.
 */
record AllreduceReport(Figures figures, int rounds, boolean baseline, PrintStream out) {
    static final String MPI = "mpi";
    static final String PROVIDER = "tcp";

    private SortedMap<Integer, BigDecimal> of(String program, Measure measure, long size) {
        return figures.rounds(program, PROVIDER, measure, size);
    }

    void print(List<Long> sizes, List<Long> steps) {
        out.printf(Locale.ROOT, "== allreduce, 2 ranks, tcp on loopback (medians of %d runs; Open MPI first in odd rounds, ofinet"
                + " first in even ones%s)%n", rounds, baseline ? ", this tree before the baseline" : "");
        out.printf(Locale.ROOT, "%-10s %18s %18s %8s %8s", "size", "MPI busbw GB/s", "ofinet busbw GB/s", "ratio", "paired");
        if (baseline) {
            out.printf(Locale.ROOT, " %18s %8s %8s%n", "baseline GB/s", "ratio", "paired");
        } else {
            out.println();
        }
        for (long s : sizes) {
            out.printf(Locale.ROOT, "%-10s %18s", s, cell(median(of(MPI, Measure.ALLREDUCE, s).values())));
            out.print(against(PointToPointReport.OFINET, Measure.ALLREDUCE, s));
            out.println(baseline ? against(PointToPointReport.BASELINE, Measure.ALLREDUCE, s) : "");
        }
        out.println("== exchange, 2 ranks: one step of the allreduce, each rank sending the size and receiving as much"
                + " at once");
        out.printf(Locale.ROOT, "   (medians of %d runs; MPI_Sendrecv after MPI_Allreduce, this tree's ofinet-perf exchange after its"
                + " allreduce)%n", rounds);
        out.printf(Locale.ROOT, "%-10s %18s %18s %8s %8s%n", "size", "MPI GB/s", "ofinet GB/s", "ratio", "paired");
        for (long s : steps) {
            out.printf(Locale.ROOT, "%-10s %18s", s, cell(median(of(MPI, Measure.EXCHANGE, s).values())));
            out.println(against(PointToPointReport.OFINET, Measure.EXCHANGE, s));
        }
    }

    /** {@code program}'s median, its ratio to MPI's median and the paired ratio, as columns. */
    private String against(String program, Measure measure, long s) {
        Optional<BigDecimal> m = median(of(MPI, measure, s).values());
        Optional<BigDecimal> o = median(of(program, measure, s).values());
        return String.format(Locale.ROOT, " %18s %8s %8s", cell(o), ratioCell(ratio(o, m)),
                ratioCell(paired(of(program, measure, s), of(MPI, measure, s), rounds)));
    }
}
