package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What OFINET_WARM_UP asks for, and which device the warm-up makes for NCCL's first device. */
class WarmUpTest {
    private final RecordingLog log = new RecordingLog();
    private final List<String> warnings = log.warnings;

    @Test
    void offOrZeroMakesNoWarmUp() {
        assertNull(WarmUp.of("off", WarmUp.SHM_LAYOUT, log));
        assertNull(WarmUp.of(" OFF ", WarmUp.SHM_LAYOUT, log));
        assertNull(WarmUp.of("0", WarmUp.SHM_LAYOUT, log));
        assertEquals(List.of(), warnings);
    }

    @Test
    void unsetMakesTheDefaultRoundTripsAndANumberItsOwn() {
        assertEquals(WarmUp.ROUND_TRIPS, WarmUp.of(null, WarmUp.SHM_LAYOUT, log).roundTrips());
        assertEquals(WarmUp.ROUND_TRIPS, WarmUp.of("", WarmUp.SHM_LAYOUT, log).roundTrips());
        assertEquals(500, WarmUp.of("500", WarmUp.SHM_LAYOUT, log).roundTrips());
        assertEquals(List.of(), warnings);
    }

    @Test
    void anythingElseIsNamedInAWarningAndTheDefaultTaken() {
        for (String value : List.of("on", "-5", "1e4", "99999999999")) {
            warnings.clear();
            WarmUp w = WarmUp.of(value, WarmUp.SHM_LAYOUT, log);
            assertNotNull(w, value);
            assertEquals(WarmUp.ROUND_TRIPS, w.roundTrips(), value);
            assertEquals(1, warnings.size(), value);
            assertTrue(warnings.get(0).contains("OFINET_WARM_UP=" + value), warnings.get(0));
        }
    }

    @Test
    void tcpRailsGetATcpDeviceOnLoopbackWithTheSameProvider() {
        assertEquals(String.format(WarmUp.TCP_LAYOUT, "tcp;ofi_rxm"), WarmUp.layoutFor(List.of("tcp;ofi_rxm")));
        assertEquals(String.format(WarmUp.TCP_LAYOUT, "tcp;ofi_rxm"),
                WarmUp.layoutFor(List.of("tcp;ofi_rxm", "tcp;ofi_rxm")));
        assertEquals(String.format(WarmUp.TCP_LAYOUT, "tcp"), WarmUp.layoutFor(List.of("tcp")));
        assertTrue(WarmUp.layoutFor(List.of("tcp;ofi_rxm")).contains("\"srcAddr\": \"127.0.0.1\""));
    }

    @Test
    void everythingElseGetsShmWhichTakesNothingOfANic() {
        for (List<String> providers : List.of(List.<String>of(), List.of("shm"), List.of("efa"), List.of("cxi"),
                List.of("verbs;ofi_rxm"), List.of("tcp;ofi_rxm", "shm"), List.of("tcpx"), List.of("sockets"))) {
            assertEquals(WarmUp.SHM_LAYOUT, WarmUp.layoutFor(providers), providers.toString());
        }
    }
}
