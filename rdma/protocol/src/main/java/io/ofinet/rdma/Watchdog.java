package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps an endpoint's slow duties going while the application leaves it alone: one daemon thread
 * for the whole JVM looks at each open endpoint and, when no application thread has driven its
 * progress within {@link #PERIOD_MS} and none holds it now, takes it for one progress step. That
 * step sends the keepalives that are due and checks its peers, so that a peer that dies is found
 * while the application only waits, or computes, or sleeps. The watchdog never waits for an
 * endpoint and does nothing while the application is driving it.
 *
 * <p>It looks every {@link #PERIOD_MS} while it finds an endpoint that no application thread
 * drives, and less often while application threads drive them all: every {@link #DRIVEN_PERIOD_MS},
 * or an eighth of the shortest {@code peerTimeoutMs} when that is shorter. A look takes a core from
 * whatever ran there, a rank that spins on it included, and on a virtual machine a timed wake-up
 * alone costs a thread tens of microseconds of it. Its code runs too rarely for the JIT, so it runs
 * interpreted, and is kept short: a plain thread that parks between looks (not a scheduled
 * executor, whose machinery took about 0.3 ms of a core a look), the endpoints in an array, and an
 * endpoint that an application thread drives passed over without taking it
 * (docs/measurements/2026-12-01-the-tail-what-wakes-beside-the-ranks.md).
 */
final class Watchdog {
    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());
    /** How often the watchdog looks while some endpoint is not driven by the application. */
    static final long PERIOD_MS = 200;
    static final long PERIOD_NANOS = PERIOD_MS * 1_000_000L;
    /** How often it looks at most while the application drives every endpoint. */
    static final long DRIVEN_PERIOD_MS = 1000;

    private static final RdmaEndpoint[] NONE = {};
    /** The endpoints watched: replaced, never changed, under the class's lock. */
    private static volatile RdmaEndpoint[] watched = NONE;
    /** The wait after a look that found every endpoint driven, set by the endpoints watched. */
    private static volatile long drivenPeriodNanos = PERIOD_NANOS;
    /** The thread that looks, while some endpoint is watched; a thread that is no longer this one ends. */
    private static volatile Thread looker;
    /** Looks so far (written by the looking thread only). */
    private static volatile long looks;

    private Watchdog() {
    }

    /** Starts watching {@code endpoint}; the thread starts with the first. */
    static synchronized void watch(RdmaEndpoint endpoint) {
        if (!watches(endpoint)) {
            RdmaEndpoint[] more = Arrays.copyOf(watched, watched.length + 1);
            more[more.length - 1] = endpoint;
            watched = more;
            drivenPeriodNanos = drivenPeriod(more);
        }
        if (looker == null) {
            Thread thread = new Thread(Watchdog::loop, "ofinet-watchdog");
            thread.setDaemon(true);
            looker = thread;
            thread.start();
        }
    }

    /** Stops watching {@code endpoint}; the thread ends with the last. */
    static synchronized void unwatch(RdmaEndpoint endpoint) {
        RdmaEndpoint[] now = watched;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == endpoint) {
                RdmaEndpoint[] fewer = Arrays.copyOf(now, now.length - 1);
                System.arraycopy(now, i + 1, fewer, i, now.length - i - 1);
                watched = fewer;
                drivenPeriodNanos = drivenPeriod(fewer);
                break;
            }
        }
        Thread thread = looker;
        if (watched.length == 0 && thread != null) {
            looker = null;
            LockSupport.unpark(thread);
        }
    }

    /** Whether {@code endpoint} is watched now. */
    static boolean watches(RdmaEndpoint endpoint) {
        for (RdmaEndpoint e : watched) {
            if (e == endpoint) {
                return true;
            }
        }
        return false;
    }

    /** How many endpoints are watched now. */
    static int watchedCount() {
        return watched.length;
    }

    /** How many looks the watchdog has taken since the JVM started. */
    static long looks() {
        return looks;
    }

    /** The wait after a look that found {@code endpoints} all driven. */
    private static long drivenPeriod(RdmaEndpoint[] endpoints) {
        long shortest = Long.MAX_VALUE;
        for (RdmaEndpoint e : endpoints) {
            shortest = Math.min(shortest, e.spec().parameters().peerTimeoutMs());
        }
        return drivenPeriodNanos(shortest);
    }

    /**
     * {@link #DRIVEN_PERIOD_MS}, or an eighth of {@code shortestPeerTimeoutMs} when that is shorter,
     * and no less than {@link #PERIOD_MS}: an endpoint whose application stops driving it goes
     * unprogressed for at most this and a period more, so that its keepalives still reach its peers
     * well within their timeout.
     */
    static long drivenPeriodNanos(long shortestPeerTimeoutMs) {
        return Math.max(Math.min(DRIVEN_PERIOD_MS, shortestPeerTimeoutMs / 8), PERIOD_MS) * 1_000_000L;
    }

    private static void loop() {
        Thread self = Thread.currentThread();
        long next = System.nanoTime() + PERIOD_NANOS;
        while (looker == self) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait); // may return early: the loop checks the time again
                continue;
            }
            next = System.nanoTime() + (look() ? drivenPeriodNanos : PERIOD_NANOS);
        }
    }

    /** One look at every endpoint; returns whether application threads were driving them all. */
    private static boolean look() {
        looks++;
        boolean driven = true;
        for (RdmaEndpoint endpoint : watched) {
            if (endpoint.progressedWithin(System.nanoTime(), PERIOD_NANOS) || !endpoint.tryLock()) {
                continue; // an application thread is driving it
            }
            driven = false;
            try {
                if (!endpoint.isClosed() && !endpoint.progressedWithin(System.nanoTime(), PERIOD_NANOS)) {
                    endpoint.progressEveryRail();
                }
            } catch (RdmaException | RuntimeException e) {
                // The application's next call on the endpoint meets the same trouble and reports it.
                LOG.log(Level.DEBUG, "watchdog step: {0}", e.toString());
            } finally {
                endpoint.unlock();
            }
        }
        return driven;
    }
}
