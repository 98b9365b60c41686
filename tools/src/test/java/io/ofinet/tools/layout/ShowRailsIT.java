package io.ofinet.tools.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.ConfigEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The rail view of the layout command over real fi_getinfo. */
class ShowRailsIT {
    private static final ConfigEnvironment NO_LAYOUT = ConfigEnvironment.of(Map.of(), new Properties());

    private static int show(ByteArrayOutputStream out, String... args) {
        return ShowRails.run(args, NO_LAYOUT, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void railViewShowsTheOfferAndTheRegistrationScope() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, show(out, "../config/examples/loopback-tcp.json"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("device 0 data rail 0: tcp;ofi_rxm domain lo mr_mode []"), text);
        assertTrue(text.contains("registrations: domain scope, remote addresses offsets from the region start,"
                + " keys chosen by ofinet"), text);
    }

    @Test
    void railWithoutAnOfferIsReportedAndFailsTheCommand() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(1, show(out, "../config/examples/endpoint-mr.json"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("device 0 data rail 0: no offer from cxi on cxi0"),
                out.toString(StandardCharsets.UTF_8));
    }
}
