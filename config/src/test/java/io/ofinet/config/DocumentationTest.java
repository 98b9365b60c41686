package io.ofinet.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md's parameter table and {@link Parameter} agree: the same parameters, in
 * order, each with its environment name, default and unit.
 */
class DocumentationTest {

    /** The table's rows: layout name, environment name, default, unit. */
    private static List<String[]> rows() throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("../docs/CONFIGURATION.md"))) {
            if (line.startsWith("| `") && line.contains("| `OFINET_")) {
                String[] cells = line.split("\\|");
                rows.add(new String[] {strip(cells[1]), strip(cells[2]), cells[3].trim(), cells[4].trim()});
            }
        }
        return rows;
    }

    private static String strip(String cell) {
        return cell.trim().replace("`", "");
    }

    @Test
    void theTableListsEveryParameterInOrderWithItsEnvironmentNameDefaultAndUnit() throws IOException {
        List<String[]> rows = rows();
        List<String> documented = rows.stream().map(r -> r[0]).toList();
        assertEquals(Parameters.ALL.stream().map(Parameter::name).toList(), documented,
                "docs/CONFIGURATION.md's table against Parameters.ALL");
        for (int i = 0; i < rows.size(); i++) {
            Parameter<?> parameter = Parameters.ALL.get(i);
            String[] row = rows.get(i);
            assertEquals(parameter.envName(), row[1], parameter.name() + ": environment name");
            assertEquals(parameter.format(parameter.defaultValue()), row[2], parameter.name() + ": default");
            String unit = switch (parameter.unit()) {
                case "B" -> "bytes";
                case "ms" -> "ms";
                case "us" -> "µs";
                default -> null;
            };
            if (unit != null) {
                assertEquals(unit, row[3], parameter.name() + ": unit");
            } else {
                assertTrue(!List.of("bytes", "ms", "µs").contains(row[3]), parameter.name() + ": a count or switch,"
                        + " documented in " + row[3]);
            }
        }
    }
}
