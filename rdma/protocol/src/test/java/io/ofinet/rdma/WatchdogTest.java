package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.rdma.recv.RecvRequest;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The watchdog looks seldom while the application drives every endpoint, stands in soon after the
 * application stops (never so late that the endpoint seems not listened on), keeps a peer that
 * stopped calling alive, and its thread comes and goes with the endpoints. What it keeps alive
 * while nobody ever calls is in {@link PeerLivenessTest}.
 */
@Timeout(120)
class WatchdogTest extends PeerFixture {

    @Test
    void theWaitWhileDrivenIsAtMost600MsOrAnEighthOfTheShortestPeerTimeoutAndNeverBelowThePeriod() {
        assertEquals(TimeUnit.MILLISECONDS.toNanos(600), Watchdog.drivenPeriodNanos(30_000));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(600), Watchdog.drivenPeriodNanos(8_000));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(500), Watchdog.drivenPeriodNanos(4_000));
        assertEquals(TimeUnit.MILLISECONDS.toNanos(250), Watchdog.drivenPeriodNanos(2_000));
        assertEquals(Watchdog.PERIOD_NANOS, Watchdog.drivenPeriodNanos(1_000));
        assertEquals(Watchdog.PERIOD_NANOS, Watchdog.drivenPeriodNanos(300));
        assertEquals(Watchdog.PERIOD_NANOS, Watchdog.drivenPeriodNanos(0));
    }

    /**
     * An endpoint whose application stops just after a look found it driven goes unstepped for the
     * wait and a period: that must stay under what the slow duties take for an endpoint nobody
     * listened on, whose time they do not count as its peers' silence.
     */
    @Test
    void theLongestGapTheWatchdogLeavesIsNotTakenForAnEndpointNobodyListenedOn() {
        long longest = TimeUnit.MILLISECONDS.toNanos(Watchdog.DRIVEN_PERIOD_MS) + Watchdog.PERIOD_NANOS;
        assertTrue(longest + Watchdog.PERIOD_NANOS <= SlowDuties.NOT_LISTENING_NANOS, longest / 1_000_000
                + " ms, with a period's margin, against " + SlowDuties.NOT_LISTENING_NANOS / 1_000_000);
    }

    /**
     * Two seconds of an application thread driving both endpoints of the default peer timeout (30 s):
     * a look every 0.6 s, not every 0.2 s. Then the thread stops, and the watchdog takes each
     * endpoint for a step within 0.6 s and a period (load given its margin).
     */
    @Test
    void whileTheApplicationDrivesTheWatchdogLooksSeldomAndStandsInWhenItStops() throws Exception {
        members = "\"peerTimeoutMs\": 30000";
        connectPair();
        post(recv, b);
        assertEquals(2, Watchdog.watchedCount(), "endpoints watched besides this test's: left open by another test");
        drive(200); // past the first look, which may find the endpoints new
        long looksBefore = Watchdog.looks();
        drive(2000);
        long looks = Watchdog.looks() - looksBefore;
        // One every 0.6 s makes 3 or 4; one every 0.2 s (the pace while an endpoint is idle) 10. A
        // look that caught the driving thread between two calls on a loaded machine may add one or two.
        assertTrue(looks <= 6, looks + " looks in 2 s while driven: expected one every 0.6 s");

        long stopped = System.nanoTime();
        long bound = TimeUnit.MILLISECONDS.toNanos(Watchdog.DRIVEN_PERIOD_MS + Watchdog.PERIOD_MS + TestTime.ms(500));
        while (!(ranSince(a, stopped) && ranSince(b, stopped))) {
            assertTrue(System.nanoTime() - stopped < bound, "the watchdog stood in for the stopped thread within "
                    + TimeUnit.NANOSECONDS.toMillis(bound) + " ms");
            Thread.sleep(5);
        }
    }

    /**
     * With a peer timeout of one second, keepalives every quarter of it and the watchdog's wait while
     * driven at its floor: the sender's thread drives its endpoint in short bursts, stops for
     * three peer timeouts each time, and its peer, which waits on a receive throughout, never takes
     * it for silent.
     */
    @Test
    void aPeerWhoseThreadStopsCallingAgainAndAgainStaysAlive() throws Exception {
        long timeoutMs = TestTime.ms(1000);
        members = "\"peerTimeoutMs\": " + timeoutMs;
        connectPair();
        RecvRequest request = post(recv, b);
        for (int round = 0; round < 3; round++) {
            long burstEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < burstEnd) {
                a.progress();
                assertFalse(request.test(null));
            }
            long idleEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * timeoutMs);
            while (System.nanoTime() < idleEnd) {
                assertFalse(request.test(null), "the receive is still waiting for a live sender");
                Thread.sleep(1);
            }
        }
    }

    /** A thousand endpoints opened and closed in turn leave no watchdog thread behind them. */
    @Test
    void theThreadEndsWithTheLastEndpointAndStartsWithTheNext() throws Exception {
        provider = MemProvider.create();
        for (int i = 0; i < 1000; i++) {
            try (Device device = Device.open(provider, Layouts.mem(1, members))) {
                RdmaEndpoint endpoint = device.openEndpoint();
                assertTrue(Watchdog.watches(endpoint));
                assertTrue(watchdogThreads() >= 1);
            }
        }
        assertEquals(0, Watchdog.watchedCount(), "endpoints left open by another test");
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TestTime.ms(5000));
        while (watchdogThreads() > 0 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertEquals(0, watchdogThreads(), "watchdog threads alive with no endpoint open");
    }

    /** Drives both endpoints from this thread for {@code ms}, as an application that tests its requests. */
    private void drive(long ms) throws Exception {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < end) {
            a.progress();
            b.progress();
        }
    }

    /** Whether {@code endpoint}'s slow duties ran after {@code since}. */
    private static boolean ranSince(RdmaEndpoint endpoint, long since) {
        long now = System.nanoTime();
        return endpoint.progressedWithin(now, now - since);
    }

    private static long watchdogThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("ofinet-watchdog")).count();
    }
}
