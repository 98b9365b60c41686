package io.ofinet.nccl;

import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.ofi.OfiNetPlugin;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The data path compiled before NCCL's first transfer (docs/NCCL.md, "The warm-up"). A thread
 * started by the library's first {@code init} waits {@link #START_DELAY_MS}, then makes a device of
 * its own (a plugin and a door beside NCCL's: tcp on the loopback interface where NCCL's first device
 * is on tcp, else shm; {@link #layoutFor}), connects it to itself and makes {@link #ROUND_TRIPS} round
 * trips, calling as NCCL calls: from native code through upcall stubs ({@link WarmUpCalls},
 * {@link WarmUpRound}). Then it closes what it opened, device and plugin included, and hands the
 * memory libfabric freed back to the system; after round trips, it gives the JIT's compiler threads
 * the priority {@code OFINET_JIT_NICE} asks for, {@code SCHED_IDLE} by default ({@link
 * CompilerThreads}). It touches nothing of NCCL's: not its devices,
 * endpoints, communicators or registrations, and no NIC. Nothing waits for it but the process's exit
 * ({@link WarmUpControl}); NCCL's first listen or connect stops it ({@link #stop}), and a failure is
 * logged and ends it. {@code OFINET_WARM_UP=off} leaves it out, {@code OFINET_WARM_UP=N} sets its
 * round trips.
 */
final class WarmUp implements Runnable {
    /** The environment variable: {@code off}, or a number of round trips. */
    static final String VARIABLE = "OFINET_WARM_UP";
    /** Round trips by default ({@link WarmUpRound}): under a second on two cores, open and close included. */
    static final int ROUND_TRIPS = 10_000;
    /** The warm-up's own device where NCCL's first device is on tcp: one rail on the loopback interface. */
    static final String TCP_LAYOUT = "{\"devices\": [{\"name\": \"warm-up\", \"dataRails\": [{\"provider\":"
            + " \"%s\", \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}";
    /** The warm-up's own device anywhere else: one shm rail, which takes nothing of a NIC's. */
    static final String SHM_LAYOUT = "{\"devices\": [{\"name\": \"warm-up\", \"dataRails\": [{\"provider\":"
            + " \"shm\", \"domain\": \"shm\"}]}]}";
    /**
     * How long the warm-up waits before it opens anything: a rank whose first listen comes sooner
     * (no bootstrap between init and its connections) gets no warm-up, and pays nothing for one.
     */
    static final long START_DELAY_MS = 100;

    private final NcclDoor.Log log;
    private final Supplier<NetPlugin> plugins;
    private final int roundTrips;
    private volatile boolean stop;
    private volatile String stopReason;
    private final AtomicInteger done = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Thread thread;

    WarmUp(NcclDoor.Log log, Supplier<NetPlugin> plugins, int roundTrips) {
        this.log = log;
        this.plugins = plugins;
        this.roundTrips = roundTrips;
    }

    /**
     * The warm-up's device for NCCL's first device, whose data rails are on {@code providers}: on tcp
     * (every rail), a tcp device on the loopback interface with the same provider string, so that the
     * JIT sees the paths NCCL's traffic takes; otherwise shm. Neither takes a NIC's resources.
     */
    static String layoutFor(List<String> providers) {
        boolean tcp = !providers.isEmpty() && providers.stream().distinct().count() == 1
                && new ProviderPolicy(providers.get(0)).isTcp();
        return tcp ? String.format(TCP_LAYOUT, providers.get(0)) : SHM_LAYOUT;
    }

    /** What makes a door's warm-up, from NCCL's plugin (initialised); null for none. */
    interface Factory {
        WarmUp make(NetPlugin nccls, NcclDoor.Log log) throws Exception;
    }

    /** The warm-up {@code OFINET_WARM_UP} asks for, on a device like NCCL's first ({@link #layoutFor}). */
    static WarmUp fromEnvironment(NetPlugin nccls, NcclDoor.Log log) throws Exception {
        List<String> providers = nccls instanceof OfiNetPlugin ofi && ofi.devices() > 0 ? ofi.dataRailProviders(0)
                : List.of();
        return of(System.getenv(VARIABLE), layoutFor(providers), log);
    }

    /**
     * The warm-up {@code value} of {@code OFINET_WARM_UP} asks for, over its own device made from
     * {@code layout}; null when it is {@code off} or 0. A value that is neither is logged and the
     * default taken.
     */
    static WarmUp of(String value, String layout, NcclDoor.Log log) {
        int trips = ROUND_TRIPS;
        if (value != null && !value.isBlank()) {
            String v = value.trim();
            if (v.equalsIgnoreCase("off")) {
                return null;
            }
            try {
                trips = Integer.parseInt(v);
                if (trips < 0) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                log.warn(VARIABLE + "=" + value + " is neither off nor a number of round trips: " + ROUND_TRIPS
                        + " are made");
                trips = ROUND_TRIPS;
            }
        }
        return trips == 0 ? null : new WarmUp(log, () -> OfiNetPlugin.overLayout(layout, "the warm-up's device"), trips);
    }

    /** The round trips it makes unless stopped. */
    int roundTrips() {
        return roundTrips;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("ofinet-warm-up").start(this);
    }

    /**
     * Asks the warm-up to end after its round trip in flight, for {@code reason} (which its line
     * names); it then closes what it opened. Before its device is open, it opens none.
     */
    void stop(String reason) {
        if (stopReason == null) {
            stopReason = reason;
        }
        stop = true;
        stopped.countDown();
    }

    /** Round trips completed so far. */
    int roundTripsDone() {
        return done.get();
    }

    /** Waits at most {@code millis} for the warm-up to end; whether it has. */
    boolean awaitEnd(long millis) throws InterruptedException {
        Thread t = thread;
        if (t != null) {
            t.join(millis);
        }
        return t == null || !t.isAlive();
    }

    @Override
    public void run() {
        long begun = System.nanoTime();
        NetPlugin plugin = null;
        Arena arena = Arena.ofShared();
        try {
            if (!stopped.await(START_DELAY_MS, TimeUnit.MILLISECONDS)) {
                plugin = plugins.get();
                NcclDoor door = new NcclDoor(plugin, quiet(log));
                new WarmUpRound(WarmUpCalls.Native.over(door, arena), arena, roundTrips, () -> stop, done).run();
            }
            int trips = done.get();
            log.info("warm-up: " + trips + " round trips through the table on its own device in "
                    + (System.nanoTime() - begun) / 1_000_000 + " ms"
                    + (trips < roundTrips && stopReason != null ? ", stopped by " + stopReason : ""));
        } catch (Throwable t) {
            log.info("warm-up left off after " + (System.nanoTime() - begun) / 1_000_000 + " ms: " + t.getMessage());
        } finally {
            closeQuietly(plugin); // before the buffers and stubs go with the arena
            WarmUpCalls.Native.release();
            arena.close();
            if (plugin != null) {
                returnFreedMemory();
            }
            if (done.get() > 0) {
                CompilerThreads.afterWarmUp(log);
            }
        }
    }

    /**
     * glibc's {@code malloc_trim(0)}: the memory libfabric freed at the device's close (its
     * connection's buffers, allocated on this thread, in an arena of this thread's) goes back to the
     * system instead of staying resident in the allocator. Without glibc, nothing.
     */
    @SuppressWarnings("restricted")
    private void returnFreedMemory() {
        try {
            Linker linker = Linker.nativeLinker();
            var trim = linker.defaultLookup().find("malloc_trim");
            if (trim.isPresent()) {
                MethodHandle h = linker.downcallHandle(trim.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG));
                int released = (int) h.invokeExact(0L);
                log.trace("warm-up: malloc_trim returned " + released);
            }
        } catch (Throwable t) {
            log.trace("warm-up: malloc_trim failed: " + t);
        }
    }

    /**
     * The warm-up's door's log: its failures at INFO, as they end the warm-up and concern nothing of
     * NCCL's; nothing else, so that NCCL's log holds the warm-up's one line and never its door's init
     * or finalize lines beside NCCL's own.
     */
    private static NcclDoor.Log quiet(NcclDoor.Log log) {
        return new NcclDoor.Log() {
            @Override
            public void warn(String message) {
                log.info("warm-up: " + message);
            }

            @Override
            public void info(String message) {
            }

            @Override
            public void trace(String message) {
            }
        };
    }

    private void closeQuietly(NetPlugin plugin) {
        if (plugin != null) {
            try {
                plugin.close();
            } catch (Throwable t) {
                log.info("warm-up: its device's close failed: " + t.getMessage());
            }
        }
    }

}
