package io.ofinet.tools.compare;

import io.ofinet.tools.perf.CsvTable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a rank pays at start, over the launches of {@code bin/ofinet-compare startup}: a file of one
 * figure a line under the header {@code program,round,rank,figure,value,unit}, read by those names.
 * Its lines come from the output of {@code nccl_driver startup} ({@link #fromDriver}), whose CSV
 * lines carry the prefix {@code csv,} and the header {@code csv,rank,figure,value,unit}. Figures
 * keep the order the driver printed them in, and each its unit (ms, us, MiB, count).
 */
final class StartupFigures {
    /** The file's columns. */
    static final List<String> COLUMNS = List.of("program", "round", "rank", "figure", "value", "unit");
    /** The driver's CSV columns, after its prefix. */
    static final List<String> DRIVER_COLUMNS = List.of("rank", "figure", "value", "unit");
    private static final String PREFIX = "csv,";

    /** One figure of one rank in one launch. */
    record RankFigure(String program, int round, int rank, String name, BigDecimal value, String unit) {
    }

    private record Key(String program, int rank, String name) {
    }

    private final Map<String, String> units = new LinkedHashMap<>();
    private final Map<String, Set<String>> namesByProgram = new HashMap<>();
    private final Map<Key, SortedMap<Integer, BigDecimal>> byKey = new HashMap<>();

    private StartupFigures() {
    }

    /** The figures given; throws at two of one rank's figure in one round, or a figure in two units. */
    static StartupFigures of(List<RankFigure> figures) throws IOException {
        StartupFigures all = new StartupFigures();
        for (RankFigure f : figures) {
            all.namesByProgram.computeIfAbsent(f.program(), p -> new LinkedHashSet<>()).add(f.name());
            String unit = all.units.putIfAbsent(f.name(), f.unit());
            if (unit != null && !unit.equals(f.unit())) {
                throw new IOException(f.name() + " in " + unit + " and in " + f.unit());
            }
            BigDecimal before = all.byKey.computeIfAbsent(new Key(f.program(), f.rank(), f.name()), k -> new TreeMap<>())
                    .putIfAbsent(f.round(), f.value());
            if (before != null) {
                throw new IOException("two figures of " + f.program() + ", rank " + f.rank() + ", " + f.name()
                        + ", round " + f.round() + ": " + before + " and " + f.value());
            }
        }
        return all;
    }

    /** Reads a startup figures file; throws, naming the file and the figure, at a value it cannot read. */
    static StartupFigures read(Path file) throws IOException {
        CsvTable table = CsvTable.read(file, COLUMNS.toArray(new String[0]));
        List<RankFigure> figures = new ArrayList<>();
        for (int row = 0; row < table.size(); row++) {
            try {
                figures.add(figure(table.get(row, "program"), Integer.parseInt(table.get(row, "round")),
                        table.get(row, "rank"), table.get(row, "figure"), table.get(row, "value"),
                        table.get(row, "unit")));
            } catch (IOException | NumberFormatException e) {
                throw new IOException(file + ": figure " + (row + 1) + ": " + e.getMessage(), e);
            }
        }
        return of(figures);
    }

    /**
     * The figures of one launch of {@code program} in {@code round}: the lines of the driver's output
     * that begin with {@code csv,}, the first of them its header, read by column name.
     */
    static List<RankFigure> fromDriver(Path output, String program, int round) throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
            if (line.startsWith(PREFIX)) {
                rows.add(line.substring(PREFIX.length()).strip().split(",", -1));
            }
        }
        if (rows.isEmpty()) {
            throw new IOException(output + ": no line of nccl_driver startup's figures (" + PREFIX
                    + String.join(",", DRIVER_COLUMNS) + ")");
        }
        List<String> header = List.of(rows.get(0));
        for (String column : DRIVER_COLUMNS) {
            if (!header.contains(column)) {
                throw new IOException(output + ": no column " + column + " (its header: " + String.join(",", header)
                        + ")");
            }
        }
        List<RankFigure> figures = new ArrayList<>();
        for (int i = 1; i < rows.size(); i++) {
            String[] row = rows.get(i);
            if (row.length != header.size()) {
                throw new IOException(output + ": figure " + i + " has " + row.length + " values, its header "
                        + header.size() + " columns");
            }
            try {
                figures.add(figure(program, round, row[header.indexOf("rank")], row[header.indexOf("figure")],
                        row[header.indexOf("value")], row[header.indexOf("unit")]));
            } catch (IOException | NumberFormatException e) {
                throw new IOException(output + ": figure " + i + ": " + e.getMessage(), e);
            }
        }
        return figures;
    }

    private static RankFigure figure(String program, int round, String rank, String name, String value, String unit)
            throws IOException {
        BigDecimal v = new BigDecimal(value);
        if (v.signum() < 0) {
            throw new IOException("a negative figure: " + name + " " + value);
        }
        return new RankFigure(program, round, Integer.parseInt(rank), name, v, unit);
    }

    /** A figure as a line of the file. */
    static String line(RankFigure f) {
        return String.join(",", f.program(), Integer.toString(f.round()), Integer.toString(f.rank()), f.name(),
                f.value().toPlainString(), f.unit());
    }

    /** The figures' names in the order first read, each with its unit. */
    Map<String, String> units() {
        return Collections.unmodifiableMap(units);
    }

    /**
     * The figures' names in {@code program}'s order (the driver's), then those only other programs
     * gave, in the order first read: a program whose first launch failed does not reorder the table.
     */
    List<String> names(String program) {
        Set<String> names = new LinkedHashSet<>(namesByProgram.getOrDefault(program, Set.of()));
        names.addAll(units.keySet());
        return List.copyOf(names);
    }

    /** {@code program}'s figures of {@code rank} by round (empty where it gave none). */
    SortedMap<Integer, BigDecimal> rounds(String program, int rank, String name) {
        SortedMap<Integer, BigDecimal> found = byKey.get(new Key(program, rank, name));
        return found == null ? Collections.emptySortedMap() : Collections.unmodifiableSortedMap(found);
    }
}
