package io.ofinet.config;

import static io.ofinet.config.Layouts.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoaderTest {
    private static final Path EXAMPLES = Path.of("examples");

    @Test
    void everyExampleLoads() throws IOException, ConfigException {
        List<Path> examples;
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            examples = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertEquals(3, examples.size(), "examples: " + examples);
        for (Path example : examples) {
            RailLayout layout = ConfigLoader.loadFile(example, Layouts.EMPTY_ENV);
            assertEquals(Source.FILE, layout.source());
            assertTrue(!layout.devices().isEmpty(), example.toString());
        }
    }

    @Test
    void examplesSayWhatTheyClaim() throws ConfigException {
        RailLayout loopback = ConfigLoader.loadFile(EXAMPLES.resolve("loopback-tcp.json"), Layouts.EMPTY_ENV);
        DataRailSpec rail = loopback.devices().get(0).dataRails().get(0);
        assertEquals("tcp;ofi_rxm", rail.provider());
        assertEquals("lo", rail.domain());

        RailLayout two = ConfigLoader.loadFile(EXAMPLES.resolve("two-rails.json"), Layouts.EMPTY_ENV);
        assertEquals(2, two.devices().get(0).dataRails().size());
        assertEquals(List.of(new ControlRailSpec(0, 0), new ControlRailSpec(1, 1)),
                two.devices().get(0).controlRails());

        RailLayout endpoint = ConfigLoader.loadFile(EXAMPLES.resolve("endpoint-mr.json"), Layouts.EMPTY_ENV);
        assertEquals(MrScope.ENDPOINT, endpoint.devices().get(0).parameters().mrScope());
    }

    @Test
    void layoutIsFoundThroughEnvironmentAndPropertyWins(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a.json");
        Path b = dir.resolve("b.json");
        Files.writeString(a, Layouts.device("\"name\": \"from-env\""));
        Files.writeString(b, Layouts.device("\"name\": \"from-property\""));
        RailLayout viaEnv = ConfigLoader.load(env(Map.of("OFINET_LAYOUT", a.toString())), Optional.empty());
        assertEquals("from-env", viaEnv.devices().get(0).name());
        assertEquals(a.toString(), viaEnv.origin());
        RailLayout viaProperty = ConfigLoader.load(env(Map.of("OFINET_LAYOUT", a.toString()),
                Map.of("ofinet.layout", b.toString())), Optional.empty());
        assertEquals("from-property", viaProperty.devices().get(0).name());
    }

    @Test
    void missingLayoutFileIsAClearError(@TempDir Path dir) {
        Path missing = dir.resolve("nope.json");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(env(Map.of("OFINET_LAYOUT", missing.toString())), Optional.empty()));
        assertEquals(missing + ": layout file does not exist", e.getMessage());
    }

    @Test
    void noLayoutAndNoDiscoveryIsAClearError() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(Layouts.EMPTY_ENV, Optional.empty()));
        assertTrue(e.getMessage().startsWith("configuration: no layout file and no rail discovery: set"
                + " OFINET_LAYOUT"), e.getMessage());
    }

    @Test
    void discoveryMakesOneDevicePerDomain() throws ConfigException {
        RailDiscovery discovery = new FixedDiscovery(List.of(
                new RailDiscovery.DiscoveredDomain("tcp;ofi_rxm", "lo"),
                new RailDiscovery.DiscoveredDomain("shm", "shm")));
        RailLayout layout = ConfigLoader.load(env(Map.of("OFINET_CQ_READ_COUNT", "8")), Optional.of(discovery));
        assertEquals(Source.DISCOVERED, layout.source());
        assertEquals("fixed", layout.origin());
        assertEquals(2, layout.devices().size());
        DeviceSpec shm = layout.devices().get(1);
        assertEquals("shm/shm", shm.name());
        assertEquals(new DataRailSpec(0, "shm", "shm", Optional.empty()), shm.dataRails().get(0));
        assertEquals(List.of(new ControlRailSpec(0, 0)), shm.controlRails());
        assertEquals(8, shm.parameters().cqReadCount());
    }

    @Test
    void discoveryFindingNothingIsAClearError() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(Layouts.EMPTY_ENV, Optional.of(new FixedDiscovery(List.of()))));
        assertEquals("fixed: no usable provider domain was found; name one in a layout file"
                + " (OFINET_LAYOUT)", e.getMessage());
    }

    private record FixedDiscovery(List<DiscoveredDomain> domains) implements RailDiscovery {
        @Override
        public List<DiscoveredDomain> discover() {
            return domains;
        }

        @Override
        public String description() {
            return "fixed";
        }
    }

    @Test
    void aLayoutFileThatCannotBeReadSaysWhyInWords(@TempDir Path dir) throws Exception {
        Path latin1 = dir.resolve("latin1.json");
        Files.write(latin1, "{\"devices\": [{\"name\": \"caf\u00e9\"}]}".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(latin1 + ": layout file is not UTF-8 text", assertThrows(ConfigException.class,
                () -> ConfigLoader.loadFile(latin1, Layouts.EMPTY_ENV)).getMessage());
        assertEquals(dir + ": is a directory, not a layout file", assertThrows(ConfigException.class,
                () -> ConfigLoader.loadFile(dir, Layouts.EMPTY_ENV)).getMessage());
    }

    @Test
    void aLayoutFileMayBeginWithAByteOrderMark(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bom.json");
        String layout = Files.readString(EXAMPLES.resolve("loopback-tcp.json"));
        Files.writeString(file, "\uFEFF" + layout);
        assertEquals(ConfigLoader.loadFile(EXAMPLES.resolve("loopback-tcp.json"), Layouts.EMPTY_ENV).devices(),
                ConfigLoader.loadFile(file, Layouts.EMPTY_ENV).devices());
    }
}
