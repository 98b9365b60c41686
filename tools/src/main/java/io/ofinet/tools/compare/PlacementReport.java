package io.ofinet.tools.compare;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Each launch beside where the host had placed the machine's two CPUs while it ran (the {@link
 * Measure#placement} figures: the one-way time of a cache line between them). A launch is <em>far</em>
 * when that time was more than three times the run's shortest, which is when copies between two
 * processes run two to three times slower for every program (on this project's machine the near
 * placement measures 25-50 ns, the far one 160-180). For each size the report counts each program's
 * far launches and its slow launches among the near ones, and gives ofinet's ratio to C over the
 * rounds in which both ran near: the comparison the host's placement does not decide.
 */
final class PlacementReport {
    private static final BigDecimal FAR_FACTOR = BigDecimal.valueOf(3);

    private final Figures figures;
    private final PrintStream out;

    PlacementReport(Figures figures, PrintStream out) {
        this.figures = figures;
        this.out = out;
    }

    /**
     * The report of {@code provider}; nothing where no launch was placed (no second CPU to measure).
     *
     * @param latencyPrograms fi_pingpong, then ofinet's programs, compared with it
     * @param bandwidthPrograms the C schemes, then ofinet's programs, compared with the fastest of them
     */
    void print(String provider, List<Long> latencySizes, List<Long> bandwidthSizes, List<String> latencyPrograms,
            List<String> bandwidthPrograms) {
        List<BigDecimal> placements = new ArrayList<>();
        for (String p : latencyPrograms) {
            for (long s : latencySizes) {
                placements.addAll(figures.rounds(p, provider, Measure.LATENCY_PLACEMENT, s).values());
            }
        }
        for (String p : bandwidthPrograms) {
            for (long s : bandwidthSizes) {
                placements.addAll(figures.rounds(p, provider, Measure.BANDWIDTH_PLACEMENT, s).values());
            }
        }
        Optional<BigDecimal> nearest = Stats.fastest(placements, true);
        if (nearest.isEmpty()) {
            return;
        }
        BigDecimal farAbove = nearest.get().multiply(FAR_FACTOR);
        out.printf(Locale.ROOT, "== %s launches by the CPUs' placement (a cache line from CPU 0 to CPU 1: %s ns at the"
                + " nearest; far above %s ns)%n", provider, nearest.get().toPlainString(), farAbove.toPlainString());
        for (long s : latencySizes) {
            line(provider, Measure.LATENCY, s, latencyPrograms, farAbove,
                    near -> near.get(PointToPointReport.FI_PINGPONG), "fi_pingpong").ifPresent(out::println);
        }
        for (long s : bandwidthSizes) {
            line(provider, Measure.BANDWIDTH, s, bandwidthPrograms, farAbove, PlacementReport::fastestPresent,
                    "the fastest C scheme").ifPresent(out::println);
        }
        out.println("(far: launches while a cache line took more than three times the nearest time between the CPUs;");
        out.println(" slow: as in the table above, among the near launches; then ofinet's program ÷ C, the median");
        out.println(" over the rounds in which both ran near, with that number of rounds)");
    }

    /**
     * A size's line; empty where none of its launches was placed. {@code floor} picks C's figures of
     * the near rounds from every program's near figures.
     */
    private Optional<String> line(String provider, Measure m, long s, List<String> programs, BigDecimal farAbove,
            Function<Map<String, SortedMap<Integer, BigDecimal>>, SortedMap<Integer, BigDecimal>> floor,
            String cName) {
        Map<String, SortedMap<Integer, BigDecimal>> nearOf = new HashMap<>();
        for (String p : programs) {
            nearOf.put(p, near(p, provider, m, s, farAbove));
        }
        StringBuilder line = new StringBuilder(m.label()).append(' ').append(s).append(':');
        boolean placedAny = false;
        for (String p : programs) {
            SortedMap<Integer, BigDecimal> placed = figures.rounds(p, provider, m.placement(), s);
            if (placed.isEmpty()) {
                continue;
            }
            placedAny = true;
            SortedMap<Integer, BigDecimal> near = nearOf.get(p);
            long far = placed.values().stream().filter(v -> v.compareTo(farAbove) > 0).count();
            Optional<BigDecimal> own = Stats.fastest(near.values(), m.time());
            long slow = own.isEmpty() ? 0 : near.values().stream().filter(v -> Stats.slow(v, own.get(), m.time())).count();
            line.append(String.format(Locale.ROOT, " %s far %d/%d slow %d/%d;", p, far, placed.size(), slow,
                    near.size()));
        }
        SortedMap<Integer, BigDecimal> c = floor.apply(nearOf);
        for (String p : programs) {
            if (!PointToPointReport.SCHEMES.contains(p) && !p.equals(PointToPointReport.FI_PINGPONG)) {
                ratioWhereNear(nearOf.get(p), c).ifPresent(r -> line.append(
                        String.format(Locale.ROOT, " %s ÷ %s %.2f (%d);", p, cName, r.ratio(), r.rounds())));
            }
        }
        return placedAny ? Optional.of(line.toString()) : Optional.empty();
    }

    /** A program's figures of the rounds in which its launch ran near; none where its launches were not placed. */
    private SortedMap<Integer, BigDecimal> near(String program, String provider, Measure m, long s, BigDecimal farAbove) {
        SortedMap<Integer, BigDecimal> placed = figures.rounds(program, provider, m.placement(), s);
        SortedMap<Integer, BigDecimal> near = new TreeMap<>();
        figures.rounds(program, provider, m, s).forEach((round, value) -> {
            BigDecimal p = placed.get(round);
            if (p != null && p.compareTo(farAbove) <= 0) {
                near.put(round, value);
            }
        });
        return near;
    }

    /** Each round's fastest of the C schemes that ran near in it (rates), from every program's near figures. */
    private static SortedMap<Integer, BigDecimal> fastestPresent(Map<String, SortedMap<Integer, BigDecimal>> nearOf) {
        SortedMap<Integer, BigDecimal> best = new TreeMap<>();
        for (String scheme : PointToPointReport.SCHEMES) {
            nearOf.getOrDefault(scheme, new TreeMap<>()).forEach((round, value) -> best.merge(round, value,
                    BigDecimal::max));
        }
        return best;
    }

    record Ratio(BigDecimal ratio, int rounds) {
    }

    /** The median of {@code a / b} over the rounds both have; empty where they share none. */
    static Optional<Ratio> ratioWhereNear(SortedMap<Integer, BigDecimal> a, SortedMap<Integer, BigDecimal> b) {
        List<BigDecimal> ratios = new ArrayList<>();
        a.forEach((round, value) -> {
            BigDecimal other = b.get(round);
            if (other != null && other.signum() != 0) {
                ratios.add(value.divide(other, MathContext.DECIMAL64));
            }
        });
        return Stats.median(ratios).map(r -> new Ratio(r, ratios.size()));
    }
}
