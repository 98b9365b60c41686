package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.NativeUsage;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.ofi.OfiNetPlugin;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The warm-up over real libfabric, in this JVM: its round trips through upcall stubs on its own
 * device, tcp on loopback and shm; what it leaves behind (nothing native, no /dev/shm name), over
 * many lifetimes; a stop before it starts, in the middle by the caller, and by a door's first listen
 * or connect; and a device that cannot be made, which ends it with a line at INFO and no warning.
 */
class WarmUpIT {
    private static final long BOUND_MS = 120_000;
    private final RecordingLog log = new RecordingLog();
    private final List<String> infos = log.infos;
    private final List<String> warnings = log.warnings;

    private static String layout(String provider) {
        return provider.equals("shm") ? WarmUp.SHM_LAYOUT : WarmUp.layoutFor(List.of("tcp;ofi_rxm"));
    }

    /** Open objects, registrations and address entries of this process's binding. */
    private static List<Number> held() {
        return List.of(NativeUsage.openObjects(), NativeUsage.registrations(), NativeUsage.addressEntries());
    }

    private String ended() {
        return infos.stream().filter(m -> m.startsWith("warm-up")).reduce((a, b) -> b).orElse("(no line)");
    }

    private static int roundTripsIn(String line) {
        Matcher m = Pattern.compile("warm-up: (\\d+) round trips").matcher(line);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "shm"})
    void itsRoundTripsRunAndLeaveNothingBehindOverManyLifetimes(String provider) throws Exception {
        Set<String> shmBefore = ShmNames.now();
        List<Number> before = held();
        for (int lifetime = 0; lifetime < 20; lifetime++) {
            infos.clear();
            WarmUp w = WarmUp.of(lifetime == 0 ? "2000" : "50", layout(provider), log);
            w.start();
            assertTrue(w.awaitEnd(BOUND_MS), "lifetime " + lifetime + " ended");
            assertEquals(lifetime == 0 ? 2000 : 50, roundTripsIn(ended()), "lifetime " + lifetime + ": " + infos);
            assertEquals(before, held(), "lifetime " + lifetime + ": open objects, registrations, address entries");
        }
        Set<String> mine = ShmNames.now();
        mine.removeAll(shmBefore);
        mine.removeIf(n -> !n.startsWith(ProcessHandle.current().pid() + ":"));
        assertEquals(Set.of(), mine, "this process's /dev/shm names left");
        assertEquals(List.of(), warnings);
    }

    /** Polls {@code w} until it has made a round trip, within the bound. */
    private static void awaitFirstRoundTrip(WarmUp w) throws InterruptedException {
        long until = System.nanoTime() + BOUND_MS * 1_000_000;
        while (w.roundTripsDone() == 0) {
            assertTrue(System.nanoTime() < until, "no round trip within " + BOUND_MS + " ms");
            Thread.sleep(10);
        }
    }

    @Test
    void aStopEndsItAfterItsRoundTripInFlightAndItClosesWhatItOpened() throws Exception {
        List<Number> before = held();
        WarmUp w = WarmUp.of("100000000", layout("tcp"), log);
        w.start();
        try {
            awaitFirstRoundTrip(w);
        } finally {
            w.stop("a test");
        }
        assertTrue(w.awaitEnd(BOUND_MS), "ended");
        assertTrue(ended().endsWith(", stopped by a test"), infos.toString());
        int trips = roundTripsIn(ended());
        assertTrue(trips > 0 && trips < 100_000_000 && trips == w.roundTripsDone(), ended());
        assertEquals(before, held());
        assertEquals(List.of(), warnings);
    }

    /** A stop before it starts, as when NCCL connects within START_DELAY_MS: no device is made. */
    @Test
    void aStopBeforeItStartsMakesNoDevice() throws Exception {
        boolean[] made = new boolean[1];
        WarmUp w = new WarmUp(log, () -> {
            made[0] = true;
            return OfiNetPlugin.overLayout(layout("tcp"), "the warm-up's device");
        }, 100);
        w.stop("a test");
        w.start();
        assertTrue(w.awaitEnd(BOUND_MS), "ended");
        assertEquals(false, made[0], "a device was made");
        assertTrue(ended().startsWith("warm-up: 0 round trips"), infos.toString());
        assertTrue(ended().endsWith(", stopped by a test"), infos.toString());
    }

    /** A door's listen or connect stops the warm-up it started, even one the door refuses. */
    @ParameterizedTest
    @ValueSource(strings = {"listen", "connect"})
    void ncclsFirstListenOrConnectEndsTheWarmUp(String call) throws Exception {
        List<Number> before = held();
        WarmUp[] made = new WarmUp[1];
        NetPlugin nccls = OfiNetPlugin.overLayout(layout("tcp"), "NCCL's device");
        NcclDoor door = new NcclDoor(nccls, log, (p, l) -> made[0] = WarmUp.of("100000000", layout("shm"), l));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(64);
            assertEquals(NcclDoor.SUCCESS, door.init(out.address(), 0, 0, false));
            awaitFirstRoundTrip(made[0]);
            long nowhere = 0x4300000000L; // a context the door never gave
            int refused = call.equals("listen") ? door.listen(nowhere, 0, out.address() + 8, out.address() + 16)
                    : door.connect(nowhere, 0, out.address() + 8, out.address() + 16);
            assertEquals(NcclDoor.INTERNAL, refused, "a context the door never gave");
            assertTrue(made[0].awaitEnd(BOUND_MS), "the warm-up ended");
            assertTrue(ended().endsWith(", stopped by " + WarmUpControl.NCCL_CONNECTS), infos.toString());
            assertEquals(NcclDoor.SUCCESS, door.finalizeContext(CMemory.getLong(out.address())));
        } finally {
            if (made[0] != null) {
                made[0].stop("the test's end");
                made[0].awaitEnd(BOUND_MS);
            }
            nccls.close();
        }
        assertEquals(before, held());
    }

    @Test
    void aDeviceThatCannotBeMadeEndsItAtInfoWithNoWarning() throws Exception {
        List<Number> before = held();
        String noSuchProvider = WarmUp.SHM_LAYOUT.replace("\"shm\", \"domain\"", "\"nosuchprovider\", \"domain\"");
        WarmUp w = WarmUp.of("100", noSuchProvider, log);
        w.start();
        assertTrue(w.awaitEnd(BOUND_MS));
        assertTrue(ended().startsWith("warm-up left off after"), infos.toString());
        assertEquals(List.of(), warnings);
        assertEquals(before, held());
    }
}
