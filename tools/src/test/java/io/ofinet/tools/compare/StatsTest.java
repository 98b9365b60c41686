package io.ofinet.tools.compare;

import static io.ofinet.tools.compare.Stats.cell;
import static io.ofinet.tools.compare.Stats.median;
import static io.ofinet.tools.compare.Stats.paired;
import static io.ofinet.tools.compare.Stats.ratio;
import static io.ofinet.tools.compare.Stats.ratioCell;
import static io.ofinet.tools.compare.Stats.slowCount;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StatsTest {

    private static List<BigDecimal> values(String... v) {
        return Arrays.stream(v).map(BigDecimal::new).toList();
    }

    /** Figures by round, from round 1 on. */
    private static SortedMap<Integer, BigDecimal> rounds(String... v) {
        SortedMap<Integer, BigDecimal> m = new TreeMap<>();
        for (int i = 0; i < v.length; i++) {
            m.put(i + 1, new BigDecimal(v[i]));
        }
        return m;
    }

    private static Optional<BigDecimal> of(String v) {
        return Optional.of(new BigDecimal(v));
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleFigureAsPrinted() {
        assertEquals("7.250", cell(median(values("9.1", "7.250", "3"))));
        assertEquals("4.5", cell(median(values("4.5"))));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals("2.5", cell(median(values("10", "1", "3", "2"))));
        assertEquals("2.895", cell(median(values("2.88", "2.91"))));
    }

    @Test
    void noFigureGivesADash() {
        assertEquals("-", cell(median(List.of())));
        assertEquals("-", ratioCell(ratio(Optional.empty(), of("2"))));
        assertEquals("-", ratioCell(ratio(of("2"), Optional.empty())));
        assertEquals("-", ratioCell(ratio(of("2"), of("0"))));
        assertEquals("-", Stats.mbsCell(Optional.empty()));
        assertEquals("-", slowCount(List.of(), Optional.empty(), true));
    }

    @Test
    void aRatioHasTwoDecimals() {
        assertEquals("1.33", ratioCell(ratio(of("4"), of("3"))));
        assertEquals("4123.5", Stats.mbsCell(of("4.1235")));
    }

    @Test
    void thePairedRatioIsTheMedianOfEachRoundsOwnRatio() {
        // Rounds: 2/1, 4/1, 6/2: ratios 2, 4, 3; the ratio of the medians would be 4/1.
        SortedMap<Integer, BigDecimal> a = rounds("2", "4", "6");
        SortedMap<Integer, BigDecimal> b = rounds("1", "1", "2");
        assertEquals("3.00", ratioCell(paired(a, b, 3)));
        assertEquals("4.00", ratioCell(ratio(median(a.values()), median(b.values()))));
        // Two rounds: the mean of the two ratios.
        assertEquals("3.00", ratioCell(paired(rounds("2", "4"), rounds("1", "1"), 2)));
        // A round without a figure, or fewer rounds than run: none.
        b.remove(2);
        assertEquals("-", ratioCell(paired(a, b, 3)));
        assertEquals("-", ratioCell(paired(rounds("2", "4"), rounds("1", "1"), 3)));
    }

    @Test
    void eachRoundsFastestCSchemeIsTakenWhereEverySchemeHasAFigure() {
        SortedMap<Integer, BigDecimal> writedata = rounds("5000.0", "2500.0", "5100.0");
        SortedMap<Integer, BigDecimal> send = rounds("4000.0", "4100.0", "4200.0");
        send.remove(3);
        SortedMap<Integer, BigDecimal> best = Stats.fastestPerRound(List.of(writedata, send), false);
        assertEquals(rounds("5000.0", "4100.0"), best);
        assertEquals(rounds("4000.0", "2500.0"), Stats.fastestPerRound(List.of(writedata, send), true));
        assertEquals(of("5100.0"), Stats.fastestPresent(List.of(of("5100.0"), Optional.empty(), of("4")), false));
    }

    @Test
    void aSlowLaunchIsMoreThanFourThirdsOfTheFastestInTimeOrBelowThreeQuartersOfTheBestRate() {
        assertFalse(Stats.slow(new BigDecimal("4"), new BigDecimal("3"), true));
        assertTrue(Stats.slow(new BigDecimal("4.01"), new BigDecimal("3"), true));
        assertFalse(Stats.slow(new BigDecimal("3"), new BigDecimal("4"), false));
        assertTrue(Stats.slow(new BigDecimal("2.99"), new BigDecimal("4"), false));
        assertEquals("1/3", slowCount(values("10", "10.5", "20"), of("10"), true));
        assertEquals("1/3", slowCount(values("4", "2", "3.9"), of("4"), false));
    }

    @Test
    void aProgramSlowInEveryLaunchIsCountedAgainstTheFastestOfAnyProgram() {
        // Against its own fastest launch none is slow; against the fastest program's, all three.
        assertEquals("0/3 (3/3)", slowCount(values("20", "21", "22"), of("10"), true));
        assertEquals("0/3 (3/3)", slowCount(values("2.1", "2.0", "2.2"), of("4.5"), false));
        // Within 4/3 of the fastest program: the second count is left out where it is no more.
        assertEquals("1/3", slowCount(values("11", "12", "30"), of("10"), true));
        assertEquals("1/3 (2/3)", slowCount(values("12", "14", "30"), of("10"), true));
    }
}
