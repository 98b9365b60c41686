package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps an endpoint's slow duties going while the application leaves it alone: one daemon thread
 * for the whole JVM looks at each open endpoint and, when no application thread has driven its
 * progress within {@link #PERIOD_MS} and none holds it now, takes it for one progress step. That
 * step sends the keepalives that are due and checks its peers, so that a peer that dies is found
 * while the application only waits, or computes, or sleeps. The watchdog never waits for an
 * endpoint and does nothing while the application is driving it. An endpoint that a thread left
 * behind when it ended, with nothing of it in use, it closes ({@link RdmaEndpoint#closeIfAbandoned}).
 *
 * <p>It looks every {@link #PERIOD_MS} while it finds an endpoint that no application thread
 * drives, and less often while application threads drive them all: every {@link #DRIVEN_PERIOD_MS},
 * or an eighth of the shortest {@code peerTimeoutMs} when that is shorter. An endpoint whose
 * application stops then goes unstepped for at most that wait and a period more, which stays under
 * {@link SlowDuties#NOT_LISTENING_NANOS}: the watchdog's own pace is never taken for an endpoint
 * nobody listened on. Each look takes a core from whatever ran there, a rank that spins on it
 * included; on a virtual machine the wake-up alone costs tens of microseconds of it, and the look's
 * code, too rarely run to be compiled, is interpreted. So the thread is a plain one that parks
 * between looks (a scheduled executor's machinery cost more), the endpoints are in a copy-on-write
 * list (a look walks a snapshot array), and an endpoint whose duties ran lately is passed over without taking its lock
 * (docs/measurements/2026-12-01-the-tail-what-wakes-beside-the-ranks.md).
 *
 * <p>Once the JVM is ending ({@link Shutdown}) the watchdog looks no more, and the JVM's end waits
 * for a look in progress ({@link #awaitNoLook}): a process that ends inside a provider call leaves
 * behind what the call held, on shm a spinlock in shared memory that its peers then spin on for
 * good (docs/FABRIC.md).
 */
final class Watchdog {
    private static final System.Logger LOG = System.getLogger(Watchdog.class.getName());
    /** How often the watchdog looks while some endpoint is not driven by the application. */
    static final long PERIOD_MS = 200;
    static final long PERIOD_NANOS = PERIOD_MS * 1_000_000L;
    /**
     * How often it looks at most while the application drives every endpoint: 600 ms, so that this
     * wait, a period, and a period's margin for the watchdog's own delays make
     * {@link SlowDuties#NOT_LISTENING_NANOS}.
     */
    static final long DRIVEN_PERIOD_MS = SlowDuties.NOT_LISTENING_NANOS / 1_000_000L - 2 * PERIOD_MS;

    /** The endpoints watched. */
    private static final List<RdmaEndpoint> WATCHED = new CopyOnWriteArrayList<>();
    /** The wait after a look that found every endpoint driven, set by the endpoints watched. */
    private static volatile long drivenPeriodNanos = PERIOD_NANOS;
    /** The thread that looks, while some endpoint is watched; a thread that is no longer this one ends. */
    private static volatile Thread looker;
    /** Looks so far (written by the looking thread only). */
    private static volatile long looks;
    /** Held through each look, and by an ending JVM's wait for it. */
    private static final ReentrantLock LOOKING = new ReentrantLock();

    private Watchdog() {
    }

    /**
     * Starts watching {@code endpoint}; the thread starts with the first. A thread that cannot start
     * is warned of, and tried again at the next endpoint.
     */
    static synchronized void watch(RdmaEndpoint endpoint) {
        if (!WATCHED.contains(endpoint)) {
            WATCHED.add(endpoint);
            drivenPeriodNanos = drivenPeriod(WATCHED);
        }
        if (looker == null && !Shutdown.inProgress()) {
            Thread thread = new Thread(Watchdog::loop, "ofinet-watchdog");
            thread.setDaemon(true);
            looker = thread; // before it runs: a thread that is not the looker ends
            try {
                thread.start();
            } catch (OutOfMemoryError | RuntimeException e) {
                looker = null;
                LOG.log(Level.WARNING, "no watchdog thread for now: {0}; idle endpoints send no keepalives",
                        e.toString());
            }
        }
    }

    /** Stops watching {@code endpoint}; the thread ends with the last. */
    static synchronized void unwatch(RdmaEndpoint endpoint) {
        if (WATCHED.remove(endpoint)) {
            drivenPeriodNanos = drivenPeriod(WATCHED);
        }
        Thread thread = looker;
        if (WATCHED.isEmpty() && thread != null) {
            looker = null;
            LockSupport.unpark(thread);
        }
    }

    /** Whether {@code endpoint} is watched now. */
    static boolean watches(RdmaEndpoint endpoint) {
        return WATCHED.contains(endpoint);
    }

    /** How many endpoints are watched now. */
    static int watchedCount() {
        return WATCHED.size();
    }

    /** How many looks the watchdog has taken since the JVM started. */
    static long looks() {
        return looks;
    }

    /** The wait after a look that found {@code endpoints} all driven. */
    private static long drivenPeriod(List<RdmaEndpoint> endpoints) {
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
            Thread.interrupted(); // an interrupt would make every park return at once
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait); // may return early: the loop checks the time again
                continue;
            }
            boolean driven = false;
            LOOKING.lock();
            try {
                if (Shutdown.inProgress()) {
                    ended(self);
                    return;
                }
                driven = look();
            } catch (Throwable t) {
                // Not the endpoints' trouble (look() keeps that to them): the watchdog carries on.
                LOG.log(Level.WARNING, "watchdog: {0}", t.toString());
            } finally {
                LOOKING.unlock();
            }
            next = System.nanoTime() + (driven ? drivenPeriodNanos : PERIOD_NANOS);
        }
    }

    /** The looking thread {@code self} ends for good (the JVM ends): no other starts. */
    private static synchronized void ended(Thread self) {
        if (looker == self) {
            looker = null;
        }
    }

    /**
     * Waits up to {@code nanos} for a look in progress to end; called once the JVM is ending, after
     * which no look begins, and no endpoint is looked at beyond the one in hand. Returns whether
     * none was in progress by then. Called on the look's own thread (a C host's {@code exit()} from
     * inside a provider call of the look), it holds the lock already and does not wait for itself;
     * a {@code System.exit} from inside a look runs the hook on another thread, which waits the
     * bound out. Never called holding the class's monitor: a look takes it ({@link #unwatch},
     * through an endpoint's close).
     */
    static boolean awaitNoLook(long nanos) throws InterruptedException {
        if (LOOKING.isHeldByCurrentThread()) {
            return true;
        }
        if (!LOOKING.tryLock(nanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        LOOKING.unlock();
        return true;
    }

    /** One look at every endpoint; returns whether application threads had driven them all lately. */
    private static boolean look() {
        looks++;
        boolean driven = true;
        for (RdmaEndpoint endpoint : WATCHED) {
            if (Shutdown.inProgress()) {
                break; // the end waits for this look: no call more
            }
            if (endpoint.progressedWithin(System.nanoTime(), PERIOD_NANOS)) {
                continue; // an application thread is driving it
            }
            // Not driven, whether or not someone holds it (a call that blocked, or another
            // endpoint sharing its domain's lock): the next look comes soon.
            driven = false;
            if (endpoint.closeIfAbandoned() || !endpoint.tryLock()) {
                continue;
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
        return driven;
    }
}
