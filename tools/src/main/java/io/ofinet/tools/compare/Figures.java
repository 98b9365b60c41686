package io.ofinet.tools.compare;

import io.ofinet.tools.perf.CsvTable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The figures of one comparison, from its figures file: a CSV of one figure a line under the header
 * {@code program,provider,measure,size,round,value,unit}, read by those names. The scripts append
 * the C programs' figures as the programs print them (unit {@code us}, {@code MB/s} or {@code
 * GB/s}), each launch's placement of the CPUs (unit {@code ns}) and ofinet-perf's figures through
 * {@link #fromPerfCsv}; a rate in MB/s (10<sup>6</sup> bytes a second) is held in GB/s, exactly.
 */
final class Figures {
    /** The figures file's columns. */
    static final List<String> COLUMNS = List.of("program", "provider", "measure", "size", "round", "value", "unit");

    private record Key(String program, String provider, Measure measure, long size) {
    }

    private final Map<Key, SortedMap<Integer, BigDecimal>> byKey = new HashMap<>();

    private Figures() {
    }

    /** The figures given; throws when a program has two for the same measure, size and round. */
    static Figures of(Collection<Figure> figures) throws IOException {
        Figures all = new Figures();
        for (Figure f : figures) {
            all.add(f);
        }
        return all;
    }

    private void add(Figure f) throws IOException {
        Key key = new Key(f.program(), f.provider(), f.measure(), f.size());
        BigDecimal before = byKey.computeIfAbsent(key, k -> new TreeMap<>()).putIfAbsent(f.round(), f.value());
        if (before != null) {
            throw new IOException("two figures of " + f.program() + " on " + f.provider() + ", " + f.measure().label()
                    + " at " + f.size() + " B, round " + f.round() + ": " + before + " and " + f.value());
        }
    }

    /** Reads a figures file; throws, naming the file and the figure, at a value it cannot read. */
    static Figures read(Path file) throws IOException {
        CsvTable table = CsvTable.read(file, COLUMNS.toArray(new String[0]));
        List<Figure> figures = new ArrayList<>();
        for (int row = 0; row < table.size(); row++) {
            try {
                Measure measure = Measure.of(table.get(row, "measure"));
                BigDecimal value = inUnitOf(measure, new BigDecimal(table.get(row, "value")), table.get(row, "unit"));
                figures.add(new Figure(table.get(row, "program"), table.get(row, "provider"), measure,
                        Long.parseLong(table.get(row, "size")), Integer.parseInt(table.get(row, "round")), value));
            } catch (IOException | NumberFormatException e) {
                throw new IOException(file + ": figure " + (row + 1) + ": " + e.getMessage(), e);
            }
        }
        return of(figures);
    }

    /** {@code value} given in {@code unit}, in the unit of {@code measure}. */
    private static BigDecimal inUnitOf(Measure measure, BigDecimal value, String unit) throws IOException {
        if (value.signum() < 0) {
            throw new IOException("a negative figure: " + value);
        }
        if (unit.equals(measure.unit())) {
            return value;
        }
        if (!measure.time() && unit.equals("MB/s")) {
            return value.movePointLeft(3);
        }
        throw new IOException(measure.label() + " in " + unit + " (it takes " + measure.unit()
                + (measure.time() ? "" : " or MB/s") + ")");
    }

    /**
     * The figures of an {@code ofinet-perf --csv} file as one launch of {@code program} in {@code
     * round}, read by column name: pingpong's time_us (latency), sendrecv's, drained's and exchange's
     * algbw_gbs, allreduce's busbw_gbs.
     */
    static List<Figure> fromPerfCsv(Path csv, String program, String provider, int round) throws IOException {
        CsvTable table = CsvTable.read(csv, "test", "size");
        List<Figure> figures = new ArrayList<>();
        for (int row = 0; row < table.size(); row++) {
            String test = table.get(row, "test");
            Measure measure;
            String column;
            switch (test) {
                case "pingpong" -> {
                    measure = Measure.LATENCY;
                    column = "time_us";
                }
                case "sendrecv", "drained", "exchange" -> {
                    measure = switch (test) {
                        case "sendrecv" -> Measure.BANDWIDTH;
                        case "drained" -> Measure.DRAINED;
                        default -> Measure.EXCHANGE;
                    };
                    column = "algbw_gbs";
                }
                case "allreduce" -> {
                    measure = Measure.ALLREDUCE;
                    column = "busbw_gbs";
                }
                default -> throw new IOException(csv + ": ofinet-perf " + test + " has no figure compared");
            }
            table.require(column);
            try {
                figures.add(new Figure(program, provider, measure, Long.parseLong(table.get(row, "size")), round,
                        inUnitOf(measure, new BigDecimal(table.get(row, column)), measure.unit())));
            } catch (NumberFormatException e) {
                throw new IOException(csv + ": row " + (row + 1) + ": not a number in size or " + column, e);
            }
        }
        return figures;
    }

    /** A figure as a line of the figures file. */
    static String line(Figure f) {
        return String.join(",", f.program(), f.provider(), f.measure().label(), Long.toString(f.size()),
                Integer.toString(f.round()), f.value().toPlainString(), f.measure().unit());
    }

    /** The figures of {@code program}, by round (empty where it gave none). */
    SortedMap<Integer, BigDecimal> rounds(String program, String provider, Measure measure, long size) {
        SortedMap<Integer, BigDecimal> found = byKey.get(new Key(program, provider, measure, size));
        return found == null ? Collections.emptySortedMap() : Collections.unmodifiableSortedMap(found);
    }
}
