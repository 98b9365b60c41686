package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps an endpoint's slow duties going while the application leaves it alone: every
 * {@link #PERIOD_MS}, one daemon thread for the whole JVM looks at each open endpoint and, when no
 * application thread has driven its progress since the previous look and none holds it now, takes
 * it for one progress step. That step sends the keepalives that are due and checks its peers, so
 * that a peer that dies is found while the application only waits, or computes, or sleeps. The
 * watchdog never waits for an endpoint and does nothing while the application is driving it.
 */
final class Watchdog {
    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());
    /** How often the watchdog looks. */
    static final long PERIOD_MS = 200;
    static final long PERIOD_NANOS = PERIOD_MS * 1_000_000L;

    private static final Set<RdmaEndpoint> ENDPOINTS = ConcurrentHashMap.newKeySet();
    private static ScheduledExecutorService timer;

    private Watchdog() {
    }

    /** Starts watching {@code endpoint}; the thread starts with the first. */
    static synchronized void watch(RdmaEndpoint endpoint) {
        ENDPOINTS.add(endpoint);
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "ofinet-watchdog");
                thread.setDaemon(true);
                return thread;
            });
            timer.scheduleWithFixedDelay(Watchdog::look, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops watching {@code endpoint}; the thread ends with the last. */
    static synchronized void unwatch(RdmaEndpoint endpoint) {
        ENDPOINTS.remove(endpoint);
        if (ENDPOINTS.isEmpty() && timer != null) {
            timer.shutdown();
            timer = null;
        }
    }

    /** Whether {@code endpoint} is watched now. */
    static boolean watches(RdmaEndpoint endpoint) {
        return ENDPOINTS.contains(endpoint);
    }

    private static void look() {
        for (RdmaEndpoint endpoint : ENDPOINTS) {
            if (!endpoint.tryLock()) {
                continue; // an application thread is driving it
            }
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
    }
}
