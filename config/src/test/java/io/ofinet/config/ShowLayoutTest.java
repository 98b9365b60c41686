package io.ofinet.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShowLayoutTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(ConfigEnvironment env, String... args) {
        return ShowLayout.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void printsRailsAndTheSourceOfEveryValue() {
        int status = run(Layouts.env(Map.of("OFINET_CQ_READ_COUNT", "8")), "examples/two-rails.json");
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        String report = out.toString(StandardCharsets.UTF_8);
        assertTrue(report.startsWith("layout: examples/two-rails.json (file)\n"), report);
        assertTrue(report.contains("     0  provider tcp;ofi_rxm    domain eth0\n"), report);
        assertTrue(report.contains("     1  on the domain of data rail 1\n"), report);
        assertTrue(report.contains("    cqReadCount                  8                environment"
                + " OFINET_CQ_READ_COUNT\n"), report);
        assertTrue(report.contains("    minStripeSize                131072 B         file"
                + " devices[0].minStripeSize\n"), report);
        assertTrue(report.contains("    mrScope                      auto             default\n"), report);
        for (Parameter<?> parameter : Parameters.ALL) {
            assertTrue(report.contains("    " + parameter.name() + " "), parameter.name());
        }
    }

    @Test
    void invalidLayoutExitsWithTwoAndTheReason(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, Layouts.device("\"eagerMaxSize\": -3"));
        assertEquals(2, run(Layouts.EMPTY_ENV, bad.toString()));
        assertEquals("ofinet: invalid configuration: " + bad
                + ": devices[0].eagerMaxSize: must be at least 0, found -3\n",
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void usageErrorExitsWithTwo() {
        assertEquals(2, run(Layouts.EMPTY_ENV, "--help"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("usage: ofinet-layout"));
    }
}
