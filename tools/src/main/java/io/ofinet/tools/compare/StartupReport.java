package io.ofinet.tools.compare;

import static io.ofinet.tools.compare.Stats.median;
import static io.ofinet.tools.compare.Stats.paired;
import static io.ofinet.tools.compare.Stats.ratioCell;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The table of {@code bin/ofinet-compare startup}: what a rank pays for ofinet ({@code nccl_driver
 * startup}), each figure's median over the launches for rank 0 and rank 1 (to at most three
 * decimals), in the driver's order and units. Beside it, for a baseline ({@code baseline}) and for
 * another plugin run under the same driver ({@code plugin}, named by its library) where they ran,
 * their medians and the paired ratio: the median of each launch's figure divided by theirs of the
 * same round and rank, over both ranks.
 */
record StartupReport(StartupFigures figures, int rounds, boolean baseline, String plugin, PrintStream out) {
    static final String OFINET = PointToPointReport.OFINET;
    static final String BASELINE = PointToPointReport.BASELINE;
    static final String PLUGIN = PointToPointReport.PLUGIN;
    static final int RANKS = 2;
    private static final String ROW = "%-16s %-5s %12s %12s";
    private static final String BESIDE = " %12s %12s %8s";

    /** The programs beside ofinet that ran, in the table's order. */
    private List<String> beside() {
        List<String> programs = new ArrayList<>();
        if (baseline) {
            programs.add(BASELINE);
        }
        if (plugin != null) {
            programs.add(PLUGIN);
        }
        return programs;
    }

    void print() {
        List<String> beside = beside();
        out.printf(Locale.ROOT, "== what a rank pays at start: nccl_driver startup, 2 ranks, tcp;ofi_rxm on loopback"
                + " (medians of %d launches%s)%n", rounds, beside.isEmpty() ? ""
                        : "; this tree first in odd rounds, last in even ones");
        if (plugin != null) {
            out.println("plugin: " + plugin + ", on its own variables' provider; it has no init split");
        }
        out.printf(Locale.ROOT, ROW, "figure", "unit", "rank 0", "rank 1");
        for (String p : beside) {
            out.printf(Locale.ROOT, BESIDE, p + " 0", p + " 1", ratioLabel(p));
        }
        out.println();
        for (String name : figures.names(OFINET)) {
            out.printf(Locale.ROOT, ROW, name, figures.units().get(name), cell(OFINET, 0, name), cell(OFINET, 1, name));
            for (String p : beside) {
                out.printf(Locale.ROOT, BESIDE, cell(p, 0, name), cell(p, 1, name),
                        ratioCell(paired(byLaunch(OFINET, name), byLaunch(p, name), rounds * RANKS)));
            }
            out.println();
        }
        if (!beside.isEmpty()) {
            out.println("(" + String.join(", ", beside.stream().map(StartupReport::ratioLabel).toList())
                    + ": the paired ratio, this tree's figure divided by the other's of the same round and"
                    + " rank, the median over rounds and ranks; below 1 this tree pays less, and '-' where a launch"
                    + " gave none)");
        }
    }

    /** The heading of the ratio to {@code program}'s figures: {@code /base}, {@code /plugin}. */
    private static String ratioLabel(String program) {
        return "/" + (program.equals(BASELINE) ? "base" : program);
    }

    /** The median of {@code program}'s launches for {@code rank}, to at most three decimals, or {@code -}. */
    private String cell(String program, int rank, String name) {
        Optional<BigDecimal> m = median(figures.rounds(program, rank, name).values());
        return m.map(v -> v.setScale(Math.min(v.scale(), 3), RoundingMode.HALF_EVEN).stripTrailingZeros()
                .toPlainString()).orElse("-");
    }

    /** {@code program}'s figures by launch: rank r of round k as (k - 1) * RANKS + r + 1. */
    private SortedMap<Integer, BigDecimal> byLaunch(String program, String name) {
        SortedMap<Integer, BigDecimal> launches = new TreeMap<>();
        for (int rank = 0; rank < RANKS; rank++) {
            for (Map.Entry<Integer, BigDecimal> e : figures.rounds(program, rank, name).entrySet()) {
                launches.put((e.getKey() - 1) * RANKS + rank + 1, e.getValue());
            }
        }
        return launches;
    }
}
