package io.ofinet.tools.compare;

import static io.ofinet.tools.compare.Stats.cell;
import static io.ofinet.tools.compare.Stats.mbsCell;
import static io.ofinet.tools.compare.Stats.median;
import static io.ofinet.tools.compare.Stats.paired;
import static io.ofinet.tools.compare.Stats.ratio;
import static io.ofinet.tools.compare.Stats.ratioCell;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The tables of {@code bin/ofinet-compare} for one provider: one-way latency against {@code
 * fi_pingpong}, bandwidth against the five C schemes of {@code fi_window}, the window drained in
 * order against the sliding one (ofinet-perf drained and sendrecv, and both through the table),
 * ofinet-perf against the same measurements through NCCL's table, and another plugin through the
 * same C driver where one ran, each program's launches at the slow speed, and the launches by the
 * host's placement of the two CPUs ({@link PlacementReport}).
 */
final class PointToPointReport {
    /** The C schemes of bin/lib/fi_window.c, in the table's order. */
    static final List<String> SCHEMES = List.of("writedata", "write-msg", "rendezvous", "announced", "send");
    static final String FI_PINGPONG = "fi_pingpong";
    static final String OFINET = "ofinet";
    static final String BASELINE = "baseline";
    static final String TABLE = "table";
    /** Another plugin through the same C driver (bin/ofinet-compare --plugin). */
    static final String PLUGIN = "plugin";

    private final Figures figures;
    private final int rounds;
    private final List<Long> latencySizes;
    private final List<Long> bandwidthSizes;
    private final boolean baseline;
    private final boolean table;
    private final String plugin;
    private final PrintStream out;

    PointToPointReport(Figures figures, int rounds, List<Long> latencySizes, List<Long> bandwidthSizes,
            boolean baseline, boolean table, String plugin, PrintStream out) {
        this.figures = figures;
        this.rounds = rounds;
        this.latencySizes = List.copyOf(latencySizes);
        this.bandwidthSizes = List.copyOf(bandwidthSizes);
        this.baseline = baseline;
        this.table = table;
        this.plugin = plugin;
        this.out = out;
    }

    /** Every table of {@code provider}. */
    void print(String provider) {
        if (!latencySizes.isEmpty()) {
            latency(provider);
        }
        if (!bandwidthSizes.isEmpty()) {
            bandwidth(provider);
            drained(provider);
        }
        if (table) {
            throughTheTable(provider);
        }
        slowLaunches(provider);
        new PlacementReport(figures, out).print(provider, latencySizes, bandwidthSizes, programs(FI_PINGPONG),
                programs(SCHEMES.toArray(new String[0])));
    }

    /** The C programs given, then those that ran of ofinet, the baseline, the table and the plugin. */
    private List<String> programs(String... c) {
        List<String> programs = new ArrayList<>(List.of(c));
        programs.add(OFINET);
        if (baseline) {
            programs.add(BASELINE);
        }
        if (table) {
            programs.add(TABLE);
        }
        if (plugin != null) {
            programs.add(PLUGIN);
        }
        return programs;
    }

    private SortedMap<Integer, BigDecimal> of(String program, String provider, Measure measure, long size) {
        return figures.rounds(program, provider, measure, size);
    }

    private Optional<BigDecimal> medianOf(String program, String provider, Measure measure, long size) {
        return median(of(program, provider, measure, size).values());
    }

    private String order() {
        return "in odd rounds the C programs first, then this tree" + (baseline ? ", then the baseline" : "")
                + "; in even rounds the reverse";
    }

    private void latency(String provider) {
        out.printf(Locale.ROOT, "== %s one-way latency (medians of %d runs; %s)%n", provider, rounds, order());
        out.printf(Locale.ROOT, "%-10s %16s %16s %8s %8s", "size", "fi_pingpong us", "ofinet us", "ratio", "paired");
        endLine(" %16s %8s %8s %10s%n", "baseline us", "ratio", "paired", "vs base");
        Measure m = Measure.LATENCY;
        for (long s : latencySizes) {
            Optional<BigDecimal> c = medianOf(FI_PINGPONG, provider, m, s);
            Optional<BigDecimal> o = medianOf(OFINET, provider, m, s);
            out.printf(Locale.ROOT, "%-10s %16s %16s %8s %8s", s, cell(c), cell(o), ratioCell(ratio(o, c)),
                    ratioCell(paired(of(OFINET, provider, m, s), of(FI_PINGPONG, provider, m, s), rounds)));
            Optional<BigDecimal> b = medianOf(BASELINE, provider, m, s);
            endLine(" %16s %8s %8s %10s%n", cell(b), ratioCell(ratio(b, c)),
                    ratioCell(paired(of(BASELINE, provider, m, s), of(FI_PINGPONG, provider, m, s), rounds)),
                    ratioCell(ratio(o, b)));
        }
    }

    /** Ends a line: with the baseline's columns where a baseline ran. */
    private void endLine(String baselineFormat, Object... baselineColumns) {
        if (baseline) {
            out.printf(baselineFormat, baselineColumns);
        } else {
            out.println();
        }
    }

    private void bandwidth(String provider) {
        out.printf(Locale.ROOT, "== %s bandwidth, 16 in flight (medians of %d runs; %s)%n", provider, rounds, order());
        out.printf(Locale.ROOT, "%-10s %14s %14s %15s %14s %10s %14s %8s %8s %8s %8s", "size", "writedata MB/s", "write-msg MB/s",
                "rendezvous MB/s", "announced MB/s", "send MB/s", "ofinet MB/s", "ratio", "paired", "vs rdv", "vs ann");
        endLine(" %14s %8s %8s %10s%n", "baseline MB/s", "ratio", "paired", "vs base");
        Measure m = Measure.BANDWIDTH;
        for (long s : bandwidthSizes) {
            List<Optional<BigDecimal>> schemes = new ArrayList<>();
            List<SortedMap<Integer, BigDecimal>> schemeRounds = new ArrayList<>();
            for (String scheme : SCHEMES) {
                schemes.add(medianOf(scheme, provider, m, s));
                schemeRounds.add(of(scheme, provider, m, s));
            }
            // The fastest scheme's median, and each round's fastest scheme for the paired ratios.
            Optional<BigDecimal> c = Stats.fastestPresent(schemes, false);
            SortedMap<Integer, BigDecimal> best = Stats.fastestPerRound(schemeRounds, false);
            Optional<BigDecimal> o = medianOf(OFINET, provider, m, s);
            SortedMap<Integer, BigDecimal> ofinet = of(OFINET, provider, m, s);
            out.printf(Locale.ROOT, "%-10s %14s %14s %15s %14s %10s %14s %8s %8s %8s %8s", s, mbsCell(schemes.get(0)),
                    mbsCell(schemes.get(1)), mbsCell(schemes.get(2)), mbsCell(schemes.get(3)), mbsCell(schemes.get(4)),
                    mbsCell(o), ratioCell(ratio(o, c)), ratioCell(paired(ofinet, best, rounds)),
                    ratioCell(paired(ofinet, schemeRounds.get(SCHEMES.indexOf("rendezvous")), rounds)),
                    ratioCell(paired(ofinet, schemeRounds.get(SCHEMES.indexOf("announced")), rounds)));
            Optional<BigDecimal> b = medianOf(BASELINE, provider, m, s);
            endLine(" %14s %8s %8s %10s%n", mbsCell(b), ratioCell(ratio(b, c)),
                    ratioCell(paired(of(BASELINE, provider, m, s), best, rounds)), ratioCell(ratio(o, b)));
        }
        out.println("(ratio: ofinet ÷ the fastest of the five C schemes, each the median of its runs; paired: the");
        out.println(" median of each round's ofinet ÷ that round's fastest C scheme; vs rdv: the same, ÷ that round's");
        out.println(" rendezvous, the C program with ofinet's messages where it writes; vs ann: ÷ that round's");
        out.println(" announced, the C program with ofinet's messages on tcp with one data rail (each transfer one");
        out.println(" message into a receive posted before its announcement); send: no write, each transfer one");
        out.println(" message; above 1 ofinet is faster)");
    }

    private void throughTheTable(String provider) {
        out.printf(Locale.ROOT, "== %s through the table (ncclNetPlugin_v12, the C driver) against ofinet-perf (Java), medians of %d"
                + " runs%n", provider, rounds);
        out.printf(Locale.ROOT, "%-10s %10s %14s %14s %12s", "size", "measure", "java", "table", "table/java");
        out.printf(Locale.ROOT, plugin == null ? "%n" : " %14s %12s%n", "plugin", "table/plugin");
        for (long s : latencySizes) {
            tableRow(provider, Measure.LATENCY, s);
        }
        for (long s : bandwidthSizes) {
            tableRow(provider, Measure.BANDWIDTH, s);
        }
        for (long s : bandwidthSizes) {
            tableRow(provider, Measure.DRAINED, s);
        }
        out.println("(table/java: the median of each round's ratio; latency below 1 and bandwidth above 1: the table"
                + " is faster;");
        out.println(" GB/s: the sliding window; drained: GB/s of windows drained in order)");
        if (plugin != null) {
            out.println("(plugin: " + plugin + " in the same C driver with its own variables, after the table in odd");
            out.println(" rounds and before it in even ones; table/plugin: the median of each round's ratio, read as");
            out.println(" table/java)");
        }
    }

    private void tableRow(String provider, Measure m, long s) {
        out.printf(Locale.ROOT, "%-10s %10s %14s %14s %12s", s, m == Measure.DRAINED ? m.label() : m.unit(),
                cell(medianOf(OFINET, provider, m, s)),
                cell(medianOf(TABLE, provider, m, s)),
                ratioCell(paired(of(TABLE, provider, m, s), of(OFINET, provider, m, s), rounds)));
        if (plugin == null) {
            out.println();
        } else {
            out.printf(Locale.ROOT, " %14s %12s%n", cell(medianOf(PLUGIN, provider, m, s)),
                    ratioCell(paired(of(TABLE, provider, m, s), of(PLUGIN, provider, m, s), rounds)));
        }
    }

    /**
     * The window drained in order against the sliding one, from Java (ofinet-perf drained and
     * sendrecv) and, where it ran, through the table: each one's medians and the median of each
     * round's drained ÷ sliding; with a baseline, its drained window and this tree's ÷ it.
     */
    private void drained(String provider) {
        out.printf(Locale.ROOT, "== %s a window drained in order against the sliding one, GB/s (medians of %d runs)%n",
                provider, rounds);
        out.printf(Locale.ROOT, "%-10s %14s %14s %8s", "size", "java sliding", "java drained", "paired");
        if (table) {
            out.printf(Locale.ROOT, " %14s %14s %8s", "table sliding", "table drained", "paired");
        }
        endLine(" %14s %10s%n", "base drained", "vs base");
        for (long s : bandwidthSizes) {
            out.printf(Locale.ROOT, "%-10s", s);
            for (String p : table ? List.of(OFINET, TABLE) : List.of(OFINET)) {
                out.printf(Locale.ROOT, " %14s %14s %8s", cell(medianOf(p, provider, Measure.BANDWIDTH, s)),
                        cell(medianOf(p, provider, Measure.DRAINED, s)), ratioCell(paired(of(p, provider,
                                Measure.DRAINED, s), of(p, provider, Measure.BANDWIDTH, s), rounds)));
            }
            Optional<BigDecimal> b = medianOf(BASELINE, provider, Measure.DRAINED, s);
            endLine(" %14s %10s%n", cell(b), ratioCell(ratio(medianOf(OFINET, provider, Measure.DRAINED, s), b)));
        }
        out.println("(sliding: 16 in flight, one posted as soon as one completes; drained: 16 posted, the oldest tested");
        out.println(" until done, then the next, a 1-byte acknowledgement after each window; paired: the median of each");
        out.println(" round's drained ÷ sliding, below 1 the drained window is slower)");
    }

    private void slowLaunches(String provider) {
        out.printf(Locale.ROOT, "== %s launches at the slow speed, of %d per program and size%n", provider, rounds);
        for (long s : latencySizes) {
            out.println(slowLine(provider, Measure.LATENCY, s, programs(FI_PINGPONG)));
        }
        List<String> bandwidthPrograms = programs(SCHEMES.toArray(new String[0]));
        for (long s : bandwidthSizes) {
            out.println(slowLine(provider, Measure.BANDWIDTH, s, bandwidthPrograms));
        }
        for (long s : bandwidthSizes) {
            out.println(slowLine(provider, Measure.DRAINED, s, programs()));
        }
        out.println("(slow: a launch more than 4/3 of the program's fastest launch of this run in time, or below 3/4 of");
        out.println(" its best rate; in brackets, where it is more, the same count against the fastest launch of any");
        out.println(" program at that size: it also counts a program slow in every launch, which the first count");
        out.println(" cannot, but also one slower by nature than the fastest program (another C scheme, ofinet where it");
        out.println(" costs more than C), so read it beside the others; where a program has slow launches, its median");
        out.println(" says little: measure 10 rounds)");
    }

    private String slowLine(String provider, Measure m, long s, List<String> programs) {
        List<BigDecimal> all = new ArrayList<>();
        for (String p : programs) {
            all.addAll(of(p, provider, m, s).values());
        }
        Optional<BigDecimal> fastestOfAll = Stats.fastest(all, m.time());
        StringBuilder line = new StringBuilder(m.label()).append(' ').append(s).append(':');
        for (String p : programs) {
            line.append(' ').append(p).append(' ').append(Stats.slowCount(of(p, provider, m, s).values(), fastestOfAll,
                    m.time()));
        }
        return line.toString();
    }

    /** The medians of one-way latency of {@code program} on {@code provider}, size and µs, for a plot. */
    List<double[]> latencyMedians(String program, String provider) {
        List<double[]> points = new ArrayList<>();
        for (long s : latencySizes) {
            medianOf(program, provider, Measure.LATENCY, s).ifPresent(v -> points.add(new double[] {s, v.doubleValue()}));
        }
        return points;
    }
}
