package io.ofinet.config;

import static io.ofinet.config.Layouts.device;
import static io.ofinet.config.Layouts.parse;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LayoutValidationTest {

    private static void rejects(String json, String expectedMessage) {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(json));
        assertEquals(expectedMessage, e.getMessage());
    }

    @Test
    void minimalLayoutTakesDefaults() throws ConfigException {
        RailLayout layout = parse(device(""));
        DeviceSpec dev = layout.devices().get(0);
        assertEquals("device0", dev.name());
        assertEquals(1, dev.dataRails().size());
        assertEquals(new ControlRailSpec(0, 0), dev.controlRails().get(0));
        assertEquals(8192, dev.parameters().eagerMaxSizeBytes());
        assertEquals(131072, dev.parameters().minStripeSizeBytes());
        assertEquals(64, dev.parameters().schedMaxSmallRrSizeBytes());
        assertEquals(4, dev.parameters().cqReadCount());
        assertEquals(2, dev.parameters().mrKeySizeBytes());
        assertEquals(MrScope.AUTO, dev.parameters().mrScope());
        assertEquals(EagerHead.AUTO, dev.parameters().eagerHead());
        assertEquals(512 * 1024, dev.parameters().eagerHeadMinSizeBytes());
        assertEquals(Source.DEFAULT, dev.parameters().setting(Parameters.EAGER_MAX_SIZE).source());
    }

    @Test
    void controlRailsDefaultToOnePerDataRail() throws ConfigException {
        RailLayout layout = parse("{\"devices\": [{\"dataRails\": ["
                + "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"a\"},"
                + "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"b\"}]}]}");
        DeviceSpec dev = layout.devices().get(0);
        assertEquals(2, dev.controlRails().size());
        assertEquals(new ControlRailSpec(1, 1), dev.controlRails().get(1));
    }

    @Test
    void unknownFieldIsRejectedWithPathAndKnownFields() {
        rejects(device("\"eagerMaxSizee\": 10"), "test.json: devices[0].eagerMaxSizee: unknown field;"
                + " known fields here are connectionTimeoutMs, controlRails, cqReadCount, dataRails,"
                + " description, eagerHead, eagerHeadMinSize, eagerMaxSize, gdrFlushDisable, latencyUs,"
                + " maxPendingConnections,"
                + " minStripeSize, mrCacheDisable, mrCacheMaxBytes, mrCacheMaxEntries, mrKeySize, mrScope, name,"
                + " peerProcessCheckDisable, peerTimeoutMs, postRetryTimeoutMs,"
                + " rdmaMaxPostedControlBuffers, rdmaMaxPostedEagerBuffers,"
                + " rdmaMinPostedControlBuffers, rdmaMinPostedEagerBuffers, rtsDelayUs, schedMaxSmallRrSize, sourceCheckDisable, writeNotice");
        rejects("{\"devices\": [{\"dataRails\": [{\"provider\": \"tcp\", \"domain\": \"lo\","
                + " \"iface\": \"x\"}]}]}",
                "test.json: devices[0].dataRails[0].iface: unknown field;"
                        + " known fields here are domain, provider, srcAddr");
        rejects("{\"devices\": [], \"version\": 1}",
                "test.json: version: unknown field; known fields here are description, devices");
        rejects("{\"devices\": [], \"\": 1}",
                "test.json: [\"\"]: unknown field; known fields here are description, devices");
        rejects("{\"devices\": [{\"dataRails\": [{\"provider\": \"tcp\", \"domain\": \"lo\","
                + " \"src addr\": \"x\"}]}]}",
                "test.json: devices[0].dataRails[0][\"src addr\"]: unknown field;"
                        + " known fields here are domain, provider, srcAddr");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"eagerMaxSize\": \"8192\"     | devices[0].eagerMaxSize: expected an integer, found a string",
        "\"eagerMaxSize\": 81.5         | devices[0].eagerMaxSize: expected an integer, found a number with a decimal"
            + " point or an exponent",
        "\"eagerMaxSize\": 1e3          | devices[0].eagerMaxSize: expected an integer, found a number with a decimal"
            + " point or an exponent",
        "\"cqReadCount\": true          | devices[0].cqReadCount: expected an integer, found a boolean",
        "\"mrCacheDisable\": 1          | devices[0].mrCacheDisable: expected a boolean, found an integer",
        "\"mrScope\": 3                 | devices[0].mrScope: expected a string, found an integer",
        "\"mrScope\": \"global\"        | devices[0].mrScope: expected one of auto, domain, endpoint, found \"global\"",
        "\"eagerHead\": true          | devices[0].eagerHead: expected a string, found a boolean",
        "\"eagerHead\": \"yes\"         | devices[0].eagerHead: expected one of auto, on, off, found \"yes\"",
        "\"name\": 7                    | devices[0].name: expected a string, found an integer",
        "\"controlRails\": {}           | devices[0].controlRails: expected an array, found an object",
    })
    void wrongTypesAreRejected(String member, String expected) {
        rejects(device(member), "test.json: " + expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "eagerMaxSize        | -1 | must be at least 0, found -1",
        "schedMaxSmallRrSize | -64 | must be at least 0, found -64",
        "mrCacheMaxBytes     | -1 | must be at least 0, found -1",
        "cqReadCount         | 0  | must be at least 1, found 0",
        "mrKeySize           | 9  | must be at most 8, found 9",
        "connectionTimeoutMs | 0  | must be at least 1, found 0",
    })
    void outOfRangeValuesAreRejected(String name, String value, String rule) {
        rejects(device("\"" + name + "\": " + value), "test.json: devices[0]." + name + ": " + rule);
    }

    /**
     * An eager message's length travels in 32 bits, and every posted eager buffer holds one: an
     * eager size within a large minStripeSize is still refused past 16 MiB, rather than wrapping on
     * the wire or in the size of the buffers' memory.
     */
    @Test
    void anEagerSizeBeyondWhatTheWireAndTheBuffersCarryIsRejected() {
        rejects(device("\"minStripeSize\": 281474976710656, \"eagerMaxSize\": 281474976710640"),
                "test.json: devices[0].eagerMaxSize: must be at most 16777216, found 281474976710640");
        rejects(device("\"minStripeSize\": 33554432, \"eagerMaxSize\": 16777217"),
                "test.json: devices[0].eagerMaxSize: must be at most 16777216, found 16777217");
    }

    @Test
    void anIntegerBeyondALongIsRejectedNamingTheRange() {
        rejects(device("\"mrCacheMaxBytes\": 99999999999999999999999"),
                "test.json: devices[0].mrCacheMaxBytes: must be at most " + Long.MAX_VALUE
                        + ", found 99999999999999999999999");
        rejects(device("\"cqReadCount\": -99999999999999999999999"),
                "test.json: devices[0].cqReadCount: must be at least 1, found -99999999999999999999999");
    }

    @Test
    void zeroDataRailsIsRejected() {
        rejects("{\"devices\": [{\"dataRails\": []}]}",
                "test.json: devices[0].dataRails: a device needs at least one data rail");
    }

    @Test
    void missingDataRailsIsRejected() {
        rejects("{\"devices\": [{\"name\": \"x\"}]}",
                "test.json: devices[0].dataRails: required field is missing");
    }

    @Test
    void moreThanSixteenDataRailsIsRejected() {
        String rail = "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\"}";
        String rails = String.join(",", Collections.nCopies(17, rail));
        rejects("{\"devices\": [{\"dataRails\": [" + rails + "]}]}",
                "test.json: devices[0].dataRails: at most 16 data rails per device, found 17");
        // Sixteen is fine.
        String sixteen = String.join(",", Collections.nCopies(16, rail));
        RailLayout layout = assertDoesNotThrow(
                () -> parse("{\"devices\": [{\"dataRails\": [" + sixteen + "]}]}"));
        assertEquals(16, layout.devices().get(0).dataRails().size());
    }

    @Test
    void controlRailNamingAMissingDataRailIsRejected() {
        rejects("{\"devices\": [{\"dataRails\": ["
                + "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"a\"},"
                + "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"b\"}],"
                + " \"controlRails\": [{\"dataRail\": 0}, {\"dataRail\": 2}]}]}",
                "test.json: devices[0].controlRails[1].dataRail: names data rail 2,"
                        + " but the device has data rails 0..1");
        rejects(device("\"controlRails\": [{\"dataRail\": -1}]"),
                "test.json: devices[0].controlRails[0].dataRail: names data rail -1,"
                        + " but the device has data rails 0..0");
        rejects(device("\"controlRails\": [{}]"),
                "test.json: devices[0].controlRails[0].dataRail: required field is missing");
        rejects(device("\"controlRails\": []"),
                "test.json: devices[0].controlRails: a device needs at least one control rail"
                        + " (leave the field out for one control rail per data rail)");
    }

    @ParameterizedTest
    @CsvSource({"0", "-128", "100", "131073", "129"})
    void minStripeSizeMustBeAPositiveMultipleOf128(long value) {
        rejects(device("\"minStripeSize\": " + value + ", \"eagerMaxSize\": 0"),
                "test.json: devices[0].minStripeSize: must be a positive multiple of 128, found " + value);
    }

    @Test
    void minStripeSizeOf128IsAccepted() throws ConfigException {
        assertEquals(128, parse(device("\"minStripeSize\": 128, \"eagerMaxSize\": 128"))
                .devices().get(0).parameters().minStripeSizeBytes());
    }

    @Test
    void eagerSizeAboveMinimumStripeSizeIsRejected() {
        rejects(device("\"eagerMaxSize\": 262144"),
                "test.json: devices[0].eagerMaxSize: must not exceed minStripeSize"
                        + " (131072 by default), found 262144");
        rejects(device("\"eagerMaxSize\": 4096, \"minStripeSize\": 1024"),
                "test.json: devices[0].eagerMaxSize: must not exceed minStripeSize (1024),"
                        + " found 4096");
    }

    @Test
    void postedBufferMinimumAboveMaximumIsRejected() {
        rejects(device("\"rdmaMinPostedControlBuffers\": 64"),
                "test.json: devices[0].rdmaMinPostedControlBuffers: must not exceed"
                        + " rdmaMaxPostedControlBuffers (32 by default), found 64");
        rejects(device("\"rdmaMinPostedEagerBuffers\": 10, \"rdmaMaxPostedEagerBuffers\": 5"),
                "test.json: devices[0].rdmaMinPostedEagerBuffers: must not exceed"
                        + " rdmaMaxPostedEagerBuffers (5), found 10");
    }

    @Test
    void railFieldsAreRequiredAndNonEmpty() {
        rejects("{\"devices\": [{\"dataRails\": [{\"domain\": \"lo\"}]}]}",
                "test.json: devices[0].dataRails[0].provider: required field is missing");
        rejects("{\"devices\": [{\"dataRails\": [{\"provider\": \"tcp\"}]}]}",
                "test.json: devices[0].dataRails[0].domain: required field is missing");
        rejects("{\"devices\": [{\"dataRails\": [{\"provider\": \" \", \"domain\": \"lo\"}]}]}",
                "test.json: devices[0].dataRails[0].provider: must not be empty");
        rejects("{\"devices\": [{\"dataRails\": [\"lo\"]}]}",
                "test.json: devices[0].dataRails[0]: expected an object, found a string");
    }

    @Test
    void documentShapeIsChecked() {
        rejects("[]", "test.json: (document): expected an object, found an array");
        rejects("", "test.json: the layout is empty; expected an object with \"devices\"");
        rejects("{}", "test.json: devices: required field is missing");
        rejects("{\"devices\": []}", "test.json: devices: at least one device is required");
        rejects("{\"devices\": {}}", "test.json: devices: expected an array, found an object");
    }

    @Test
    void duplicateDeviceNamesAreRejected() {
        String dev = "{\"name\": \"x\", \"dataRails\": [{\"provider\": \"tcp\", \"domain\": \"lo\"}]}";
        rejects("{\"devices\": [" + dev + ", " + dev + "]}",
                "test.json: devices[1].name: duplicate device name \"x\"");
    }

    @Test
    void malformedJsonNamesLineAndColumn() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse("{\"devices\": [\n  {\"dataRails\": [}\n]}"));
        assertEquals("line 2, column 18", e.path());
        assertTrue(e.rule().startsWith("malformed JSON: "), e.rule());
    }

    @Test
    void duplicateKeysAreRejectedNamingTheirPath() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse(device("\"cqReadCount\": 4, \"cqReadCount\": 8")));
        assertEquals("devices[0].cqReadCount", e.path());
        assertTrue(e.rule().startsWith("set twice (line 1, column "), e.rule());
    }

    @Test
    void trailingContentIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(device("") + " {}"));
        assertEquals("malformed JSON: more after the layout's object", e.rule());
        assertEquals("line 1, column " + (device("").length() + 2), e.path(), "where the trailing content starts");
    }

    @Test
    void aDocumentThatEndsInsideAnArrayNamesWhereItOpened() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse("{\"devices\": ["));
        assertEquals("malformed JSON: unexpected end of input: expected a value (the array opened at line 1,"
                + " column 13)", e.rule());
    }

    @Test
    void whatIsBeyondTheJsonReadersLimitsNamesItsPathAndTheLimit() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse(device("\"eagerMaxSize\": " + "9".repeat(1001))));
        assertTrue(e.path().startsWith("devices[0].eagerMaxSize (line 1, column "), e.path());
        assertEquals("beyond what the JSON reader takes: a number of more than 1000 digits", e.rule());
        e = assertThrows(ConfigException.class,
                () -> parse("{\"description\": " + "[".repeat(1001) + "]".repeat(1001) + "}"));
        assertTrue(e.path().startsWith("description[0]"), e.path());
        assertEquals("beyond what the JSON reader takes: nesting deeper than 1000", e.rule());
    }
}
