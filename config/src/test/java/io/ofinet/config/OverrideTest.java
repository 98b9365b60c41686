package io.ofinet.config;

import static io.ofinet.config.Layouts.device;
import static io.ofinet.config.Layouts.env;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OverrideTest {

    private static RailLayout parse(String json, ConfigEnvironment env) throws ConfigException {
        return ConfigLoader.parse(json, "test.json", env);
    }

    @Test
    void everyParameterHasAnEnvironmentAndPropertyName() {
        assertEquals("OFINET_EAGER_MAX_SIZE", Parameters.EAGER_MAX_SIZE.envName());
        assertEquals("OFINET_MIN_STRIPE_SIZE", Parameters.MIN_STRIPE_SIZE.envName());
        assertEquals("OFINET_SCHED_MAX_SMALL_RR_SIZE", Parameters.SCHED_MAX_SMALL_RR_SIZE.envName());
        assertEquals("OFINET_CQ_READ_COUNT", Parameters.CQ_READ_COUNT.envName());
        assertEquals("OFINET_RDMA_MIN_POSTED_CONTROL_BUFFERS",
                Parameters.RDMA_MIN_POSTED_CONTROL_BUFFERS.envName());
        assertEquals("OFINET_MR_KEY_SIZE", Parameters.MR_KEY_SIZE.envName());
        assertEquals("OFINET_MR_CACHE_DISABLE", Parameters.MR_CACHE_DISABLE.envName());
        assertEquals("OFINET_GDR_FLUSH_DISABLE", Parameters.GDR_FLUSH_DISABLE.envName());
        assertEquals("OFINET_CONNECTION_TIMEOUT_MS", Parameters.CONNECTION_TIMEOUT_MS.envName());
        assertEquals("ofinet.cqReadCount", Parameters.CQ_READ_COUNT.propertyName());
    }

    @Test
    void environmentOverridesFileAndRecordsItsSource() throws ConfigException {
        RailLayout layout = parse(device("\"cqReadCount\": 8, \"eagerMaxSize\": 1024"),
                env(Map.of("OFINET_CQ_READ_COUNT", "16", "OFINET_MR_SCOPE", "Domain",
                        "OFINET_MR_CACHE_DISABLE", "1", "OFINET_EAGER_HEAD", "Off")));
        DeviceParameters p = layout.devices().get(0).parameters();
        assertEquals(16, p.cqReadCount());
        assertEquals(new Setting<>(Parameters.CQ_READ_COUNT, 16L, Source.ENVIRONMENT, "OFINET_CQ_READ_COUNT"),
                p.setting(Parameters.CQ_READ_COUNT));
        assertEquals(MrScope.DOMAIN, p.mrScope());
        assertEquals(true, p.mrCacheDisabled());
        assertEquals(EagerHead.OFF, p.eagerHead());
        assertEquals(new Setting<>(Parameters.EAGER_MAX_SIZE, 1024L, Source.FILE, "devices[0].eagerMaxSize"),
                p.setting(Parameters.EAGER_MAX_SIZE));
        assertEquals(Source.DEFAULT, p.setting(Parameters.MIN_STRIPE_SIZE).source());
    }

    /**
     * The delay of a request to send is still set by its former name, intentDelayUs; within one source the
     * current name wins.
     */
    @Test
    void theRtsDelayKeepsItsFormerName() throws ConfigException {
        assertEquals(Optional.of("intentDelayUs"), Parameters.RTS_DELAY_US.formerName());
        assertEquals(Optional.of(Parameters.RTS_DELAY_US), Parameters.byName("intentDelayUs"));
        DeviceParameters file = parse(device("\"intentDelayUs\": 5"), env(Map.of())).devices().get(0).parameters();
        assertEquals(5000, file.rtsDelayNanos());
        assertEquals("devices[0].intentDelayUs", file.setting(Parameters.RTS_DELAY_US).origin());
        assertEquals(7000, parse(device("\"rtsDelayUs\": 7"), env(Map.of())).devices().get(0).parameters()
                .rtsDelayNanos());
        assertEquals(9000, parse(device(""), env(Map.of("OFINET_INTENT_DELAY_US", "9"))).devices().get(0)
                .parameters().rtsDelayNanos());
        assertEquals(11000, parse(device(""), env(Map.of("OFINET_INTENT_DELAY_US", "9", "OFINET_RTS_DELAY_US", "11")))
                .devices().get(0).parameters().rtsDelayNanos());
        assertEquals(13000, parse(device(""), env(Map.of(), Map.of("ofinet.intentDelayUs", "13"))).devices().get(0)
                .parameters().rtsDelayNanos());
        assertEquals(15000, parse(device(""), env(Map.of("OFINET_RTS_DELAY_US", "14"), Map.of("ofinet.intentDelayUs",
                "15"))).devices().get(0).parameters().rtsDelayNanos(), "a system property overrides the environment"
                + " whichever name each uses");
        ConfigException twice = assertThrows(ConfigException.class,
                () -> parse(device("\"intentDelayUs\": 5, \"rtsDelayUs\": 6"), env(Map.of())));
        assertEquals("test.json: devices[0].rtsDelayUs: set twice, also as intentDelayUs (its former name)",
                twice.getMessage());
    }

    /** The write-notice modes keep the spellings users write, whatever their Java names. */
    @Test
    void writeNoticeModesKeepTheirSpellings() throws ConfigException {
        assertEquals(WriteNotice.TAGGED_SEND_INSTEAD,
                parse(device("\"writeNotice\": \"tagged\""), env(Map.of())).devices().get(0).parameters().writeNotice());
        DeviceParameters p = parse(device(""), env(Map.of("OFINET_WRITE_NOTICE", "Tagged"))).devices().get(0)
                .parameters();
        assertEquals(WriteNotice.TAGGED_SEND_INSTEAD, p.writeNotice());
        assertEquals("tagged", Parameters.WRITE_NOTICE.format(p.writeNotice()));
        assertEquals(java.util.List.of("auto", "immediate", "message", "tagged"),
                java.util.Arrays.stream(WriteNotice.values()).map(WriteNotice::jsonName).toList());
        assertThrows(ConfigException.class, () -> parse(device("\"writeNotice\": \"tagged_send_instead\""),
                env(Map.of())));
    }

    @Test
    void systemPropertyWinsOverEnvironment() throws ConfigException {
        RailLayout layout = parse(device(""), env(Map.of("OFINET_CQ_READ_COUNT", "16"),
                Map.of("ofinet.cqReadCount", "32")));
        Setting<Long> s = layout.devices().get(0).parameters().setting(Parameters.CQ_READ_COUNT);
        assertEquals(32L, s.value());
        assertEquals(Source.SYSTEM_PROPERTY, s.source());
        assertEquals("ofinet.cqReadCount", s.origin());
    }

    @Test
    void overridesApplyToEveryDevice() throws ConfigException {
        String dev = "{\"name\": \"%s\", \"dataRails\": [{\"provider\": \"tcp\", \"domain\": \"lo\"}]}";
        RailLayout layout = parse("{\"devices\": [" + String.format(dev, "a") + ", "
                + String.format(dev, "b") + "]}", env(Map.of("OFINET_EAGER_MAX_SIZE", "0")));
        for (DeviceSpec d : layout.devices()) {
            assertEquals(0, d.parameters().eagerMaxSizeBytes());
        }
    }

    @Test
    void badEnvironmentValueNamesTheVariable() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of("OFINET_CQ_READ_COUNT", "lots"))));
        assertEquals("environment: OFINET_CQ_READ_COUNT: expected an integer, found \"lots\"",
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of("OFINET_MIN_STRIPE_SIZE", "1000"))));
        assertEquals("environment: OFINET_MIN_STRIPE_SIZE: must be a positive multiple of 128,"
                + " found 1000", e.getMessage());
        e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of("OFINET_GDR_FLUSH_DISABLE", "maybe"))));
        assertEquals("environment: OFINET_GDR_FLUSH_DISABLE: expected a boolean (true/false, yes/no, on/off,"
                + " 1/0), found \"maybe\"", e.getMessage());
        e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of("OFINET_CQ_READ_COUNT", "99999999999999999999"))));
        assertEquals("environment: OFINET_CQ_READ_COUNT: must be at most 1024, found 99999999999999999999",
                e.getMessage());
        e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of("OFINET_CQ_READ_COUNT", "\u0665"))));
        assertEquals("environment: OFINET_CQ_READ_COUNT: expected an integer, found \"\u0665\"", e.getMessage(),
                "digits of other scripts, which a layout cannot hold either");
        e = assertThrows(ConfigException.class, () -> parse(device(""),
                env(Map.of(), Map.of("ofinet.mrScope", "sometimes"))));
        assertEquals("system property: ofinet.mrScope: expected one of auto, domain, endpoint,"
                + " found \"sometimes\"", e.getMessage());
    }

    @Test
    void relationBrokenByOverrideNamesBothSources() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(
                device("\"eagerMaxSize\": 8192"), env(Map.of("OFINET_MIN_STRIPE_SIZE", "1024"))));
        assertEquals("test.json: devices[0].eagerMaxSize: must not exceed minStripeSize"
                + " (1024 from environment OFINET_MIN_STRIPE_SIZE), found 8192", e.getMessage());
    }

    /**
     * Every {@code OFINET_} variable the project's code names (Java and C, outside tests) is a
     * parameter's or one the loader knows is read elsewhere: the loader warns that it ignores any
     * other, and a documented setting that takes effect must not be called ignored.
     */
    @Test
    void everyVariableTheCodeReadsIsKnownToTheLoader() throws IOException {
        Pattern named = Pattern.compile("\"(OFINET_[A-Z0-9_]+)\"");
        Set<String> found = new TreeSet<>();
        Files.walkFileTree(Path.of(".."), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = String.valueOf(dir.getFileName());
                return name.equals("target") || name.startsWith(".") && !name.equals("..")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String path = file.toString();
                if (path.contains("/src/main/") && (path.endsWith(".java") || path.endsWith(".c") || path.endsWith(".h"))) {
                    Matcher m = named.matcher(Files.readString(file));
                    while (m.find()) {
                        found.add(m.group(1));
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertTrue(found.containsAll(List.of("OFINET_LAYOUT", "OFINET_JVM_OPTIONS", "OFINET_WARM_UP")),
                () -> "the scan finds the variables the code reads: " + found);
        Set<String> parameters = Parameters.ALL.stream().map(Parameter::envName).collect(Collectors.toSet());
        List<String> unknown = found.stream()
                .filter(name -> !parameters.contains(name) && !ConfigLoader.OTHER_VARIABLES.contains(name)).toList();
        assertEquals(List.of(), unknown, "read by the code, yet warned about as unknown");
    }

    @Test
    void railsAreNotOverridable() throws ConfigException {
        // No variable names a rail; an unknown OFINET_ variable is ignored with a warning.
        RailLayout layout = parse(device(""), env(Map.of("OFINET_DATA_RAILS", "[]")));
        assertEquals(1, layout.devices().get(0).dataRails().size());
    }

    @Test
    void namesThatMeanNothingAreWarnedAbout() throws ConfigException {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(ConfigLoader.class.getName());
        List<String> warnings = new java.util.ArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                warnings.add(java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            parse(device(""), env(Map.of("OFINET_EAGER_MAX_SIZ", "1", "OFINET_DEBUG", "INFO"), Map.of(
                    "ofinet.eagerMaxSiz", "1", "ofinet.layout", "x.json", "ofinet.cqReadCount", "8",
                    "ofinet.intentDelayUs", "3")));
        } finally {
            logger.removeHandler(handler);
        }
        assertEquals(List.of("ignoring unknown environment variable OFINET_EAGER_MAX_SIZ",
                "ignoring unknown system property ofinet.eagerMaxSiz"), warnings);
    }
}
