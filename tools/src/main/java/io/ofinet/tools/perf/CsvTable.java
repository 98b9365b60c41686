package io.ofinet.tools.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A CSV file whose first line names its columns, read by those names, so that a reader does not
 * depend on their order: {@code ofinet-perf --csv} files, whose columns are {@link #PERF_COLUMNS}
 * today and were fewer in older checkouts, and {@code bin/ofinet-compare}'s figures. Values hold
 * no commas and are not quoted.
 */
public final class CsvTable {
    /** The columns {@code ofinet-perf --csv} writes, in its order. */
    public static final List<String> PERF_COLUMNS = List.of("test", "provider", "ranks", "size", "count", "type",
            "time_us", "algbw_gbs", "busbw_gbs", "wrong", "disp_pct", "reps", "iters", "redone");

    private final Path file;
    private final List<String> header;
    private final Map<String, Integer> index = new HashMap<>();
    private final List<String[]> rows = new ArrayList<>();

    private CsvTable(Path file, List<String> header) {
        this.file = file;
        this.header = header;
        for (int i = 0; i < header.size(); i++) {
            index.putIfAbsent(header.get(i), i);
        }
    }

    /**
     * Reads {@code file}; throws, naming them, when columns of {@code needed} are missing from its
     * header, or when a row has not as many values as the header names.
     */
    public static CsvTable read(Path file, String... needed) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || lines.get(0).isBlank()) {
            throw new IOException(file + ": empty, with no header naming its columns");
        }
        CsvTable table = new CsvTable(file, List.of(lines.get(0).strip().split(",", -1)));
        table.require(needed);
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] values = line.split(",", -1);
            if (values.length != table.header.size()) {
                throw new IOException(file + ": line " + (i + 1) + " has " + values.length + " values, its header "
                        + table.header.size() + " columns");
            }
            table.rows.add(values);
        }
        return table;
    }

    /** Throws, naming them and the header, when columns of {@code names} are missing. */
    public void require(String... names) throws IOException {
        List<String> missing = new ArrayList<>();
        for (String name : names) {
            if (!index.containsKey(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IOException(file + ": no column " + String.join(", ", missing) + " (its header: "
                    + String.join(",", header) + ")");
        }
    }

    /** The rows below the header. */
    public int size() {
        return rows.size();
    }

    /** The value of {@code column} in row {@code row} (0: the first below the header). */
    public String get(int row, String column) {
        Integer i = index.get(column);
        if (i == null) {
            throw new IllegalArgumentException(file + ": no column " + column + " (its header: "
                    + String.join(",", header) + ")");
        }
        return rows.get(row)[i];
    }

    /** The file read. */
    public Path file() {
        return file;
    }
}
