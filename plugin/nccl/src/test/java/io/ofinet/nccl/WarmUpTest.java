package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What OFINET_WARM_UP asks for, and which device the warm-up makes for NCCL's first device. */
class WarmUpTest {
    private final RecordingLog log = new RecordingLog();
    private final List<String> warnings = log.warnings;

    /**
     * The exit's wait for a warm-up inside a call (here its device's opening, 500 ms) outlasts an
     * interrupt of the exiting thread, which it keeps: a process that ends inside a provider call
     * can leave a shm lock held for its peers (docs/FABRIC.md).
     */
    @Test
    void theExitWaitsForAWarmUpInsideACallThroughAnInterrupt() throws Exception {
        CountDownLatch opening = new CountDownLatch(1);
        WarmUp w = new WarmUp(log, () -> {
            opening.countDown();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < end) {
                Thread.onSpinWait(); // a provider call, deaf to interrupts
            }
            throw new IllegalStateException("no device here");
        }, 10);
        WarmUpControl control = new WarmUpControl((nccls, l) -> w, log);
        control.start(null);
        assertTrue(opening.await(30, TimeUnit.SECONDS), "the warm-up began opening its device");
        Thread.currentThread().interrupt();
        control.endAtExit();
        assertTrue(Thread.interrupted(), "the interrupt was kept");
        assertTrue(w.awaitEnd(0), "the warm-up had ended when the exit's wait returned: " + log.infos);
        assertTrue(log.infos.stream().anyMatch(l -> l.contains("no device here")), log.infos.toString());
    }

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
