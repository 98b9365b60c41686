package io.ofinet.tools.compare;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The statistics of a comparison. A missing figure (a launch that printed none) leaves what needs it
 * empty, and its cell {@code -}.
 */
final class Stats {
    private static final BigDecimal TWO = BigDecimal.valueOf(2);

    private Stats() {
    }

    /** The median: the middle value, or of an even count the mean of the middle two; empty for none. */
    static Optional<BigDecimal> median(Collection<BigDecimal> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        List<BigDecimal> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return Optional.of(n % 2 == 1 ? sorted.get(n / 2) : sorted.get(n / 2 - 1).add(sorted.get(n / 2)).divide(TWO));
    }

    /** {@code a / b}; empty when either is missing or {@code b} is zero. */
    static Optional<BigDecimal> ratio(Optional<BigDecimal> a, Optional<BigDecimal> b) {
        if (a.isEmpty() || b.isEmpty() || b.get().signum() == 0) {
            return Optional.empty();
        }
        return Optional.of(a.get().divide(b.get(), MathContext.DECIMAL64));
    }

    /**
     * The paired ratio: the median over the rounds 1 to {@code rounds} of each round's {@code a / b},
     * which the machine's slower and faster phases move less than a ratio of medians taken minutes
     * apart; empty unless both have a figure in every round.
     */
    static Optional<BigDecimal> paired(SortedMap<Integer, BigDecimal> a, SortedMap<Integer, BigDecimal> b, int rounds) {
        List<BigDecimal> ratios = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            Optional<BigDecimal> r = ratio(Optional.ofNullable(a.get(round)), Optional.ofNullable(b.get(round)));
            if (r.isEmpty()) {
                return Optional.empty();
            }
            ratios.add(r.get());
        }
        return median(ratios);
    }

    /** The fastest value: the lowest time, or the highest rate; empty for none. */
    static Optional<BigDecimal> fastest(Collection<BigDecimal> values, boolean time) {
        return time ? values.stream().min(BigDecimal::compareTo) : values.stream().max(BigDecimal::compareTo);
    }

    /** The fastest of the values present. */
    static Optional<BigDecimal> fastestPresent(List<Optional<BigDecimal>> values, boolean time) {
        return fastest(values.stream().flatMap(Optional::stream).toList(), time);
    }

    /** Each round's fastest figure of the programs given, in the rounds where every one of them has one. */
    static SortedMap<Integer, BigDecimal> fastestPerRound(List<SortedMap<Integer, BigDecimal>> programs, boolean time) {
        SortedMap<Integer, BigDecimal> best = new TreeMap<>();
        if (programs.isEmpty()) {
            return best;
        }
        for (Integer round : programs.get(0).keySet()) {
            List<BigDecimal> all = new ArrayList<>();
            for (SortedMap<Integer, BigDecimal> p : programs) {
                if (p.containsKey(round)) {
                    all.add(p.get(round));
                }
            }
            if (all.size() == programs.size()) {
                best.put(round, fastest(all, time).orElseThrow());
            }
        }
        return best;
    }

    /** Whether a launch ran at the slow speed: its time more than 4/3 of {@code reference}, or its rate below 3/4. */
    static boolean slow(BigDecimal launch, BigDecimal reference, boolean time) {
        return time ? launch.multiply(BigDecimal.valueOf(3)).compareTo(reference.multiply(BigDecimal.valueOf(4))) > 0
                : launch.multiply(BigDecimal.valueOf(4)).compareTo(reference.multiply(BigDecimal.valueOf(3))) < 0;
    }

    /**
     * A program's launches at the slow speed, {@code k/n}: of its {@code n} launches, {@code k} were
     * slow against its own fastest launch. Where it counts more, {@code (m/n)} follows: {@code m}
     * were slow against {@code fastestOfAll}, the fastest launch of any program of the same measure
     * and size, which also counts a program slow in every launch (against its own fastest, none is
     * slow), and a program slower by nature. {@code -} for no launch.
     */
    static String slowCount(Collection<BigDecimal> launches, Optional<BigDecimal> fastestOfAll, boolean time) {
        Optional<BigDecimal> own = fastest(launches, time);
        if (own.isEmpty()) {
            return "-";
        }
        BigDecimal reference = fastestOfAll.orElse(own.get());
        long k = launches.stream().filter(v -> slow(v, own.get(), time)).count();
        long m = launches.stream().filter(v -> slow(v, reference, time)).count();
        String count = k + "/" + launches.size();
        return m > k ? count + " (" + m + "/" + launches.size() + ")" : count;
    }

    /** A figure's cell: as the program printed it (a median of two, their mean), or {@code -}. */
    static String cell(Optional<BigDecimal> value) {
        return value.map(BigDecimal::toPlainString).orElse("-");
    }

    /** A ratio's cell, to two decimals, or {@code -}. */
    static String ratioCell(Optional<BigDecimal> ratio) {
        return ratio.map(r -> String.format(Locale.ROOT, "%.2f", r)).orElse("-");
    }

    /** A rate in GB/s as MB/s to one decimal, or {@code -}. */
    static String mbsCell(Optional<BigDecimal> gbs) {
        return gbs.map(g -> String.format(Locale.ROOT, "%.1f", g.movePointRight(3))).orElse("-");
    }
}
