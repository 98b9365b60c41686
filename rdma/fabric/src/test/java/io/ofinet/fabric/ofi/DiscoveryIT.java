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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** Rails discovered from real fi_getinfo. */
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
}
