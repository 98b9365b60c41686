package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.ConfigLoader;
import io.ofinet.config.DeviceSpec;
import io.ofinet.config.RailDiscovery;
import io.ofinet.config.RailLayout;
import io.ofinet.config.Source;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Rails discovered from real fi_getinfo, and the rail view of the layout command. */
class DiscoveryIT {
    private static final ConfigEnvironment NO_LAYOUT = ConfigEnvironment.of(Map.of(), new Properties());

    @Test
    void discoveryIsFoundByServiceLoaderAndFindsLoopbackTcp() throws Exception {
        RailDiscovery discovery = ServiceLoader.load(RailDiscovery.class).findFirst().orElseThrow();
        assertTrue(discovery instanceof OfiDiscovery);
        List<RailDiscovery.DiscoveredDomain> domains = discovery.discover();
        assertTrue(domains.contains(new RailDiscovery.DiscoveredDomain("tcp;ofi_rxm", "lo")), domains.toString());
        assertFalse(domains.stream().anyMatch(d -> d.domain().contains("/")), "no subnet aliases: " + domains);
        assertFalse(domains.stream().anyMatch(d -> d.provider().contains("mrail")), domains.toString());
        assertEquals(domains.size(), domains.stream().distinct().count());
    }

    @Test
    void withoutALayoutTheLoaderDiscoversOneDevicePerDomain() throws Exception {
        RailLayout layout = ConfigLoader.load(NO_LAYOUT, ServiceLoader.load(RailDiscovery.class).findFirst());
        assertEquals(Source.DISCOVERED, layout.source());
        DeviceSpec lo = layout.devices().stream().filter(d -> d.name().equals("tcp;ofi_rxm/lo")).findFirst()
                .orElseThrow();
        assertEquals(1, lo.dataRails().size());
        assertEquals(1, lo.controlRails().size());
    }

    private static int show(ByteArrayOutputStream out, String... args) {
        return ShowRails.run(args, NO_LAYOUT, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void railViewShowsTheOfferAndTheRegistrationScope() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, show(out, "../../config/examples/loopback-tcp.json"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("device 0 data rail 0: tcp;ofi_rxm domain lo mr_mode []"), text);
        assertTrue(text.contains("registrations: domain scope, remote addresses offsets from the region start,"
                + " keys chosen by ofinet"), text);
    }

    @Test
    void railWithoutAnOfferIsReportedAndFailsTheCommand() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(1, show(out, "../../config/examples/endpoint-mr.json"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("device 0 data rail 0: no offer from cxi on cxi0"),
                out.toString(StandardCharsets.UTF_8));
    }
}
