package io.ofinet.nccl;

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
import java.util.function.Supplier;

/**
 * The data path compiled before NCCL's first transfer. A thread started by the library's first
 * {@code init} makes a device of its own (a plugin and a door beside NCCL's: tcp on the loopback
 * interface where NCCL's first device is on tcp, else shm; {@link #layoutFor}), connects it to itself
 * and sends itself {@link #ROUND_TRIPS} messages, calling as NCCL calls: from native code through
 * upcall stubs ({@link WarmUpCalls}), {@code irecv} and {@code isend}, then {@code test} until done.
 * Then it closes what it opened, device and plugin included. It touches nothing of NCCL's: not its
 * devices, endpoints, communicators or registrations, and no NIC. Nothing waits for it; it ends at
 * NCCL's first listen, connect or transfer ({@link #stop}), and a failure is logged and ends it. {@code
 * OFINET_WARM_UP=off} leaves it out, {@code OFINET_WARM_UP=N} sets its round trips.
 */
final class WarmUp implements Runnable {
    /** The environment variable: {@code off}, or a number of round trips. */
    static final String VARIABLE = "OFINET_WARM_UP";
    /** Round trips by default: enough on a two-core machine for the JIT's last tier (docs/NCCL.md). */
    static final int ROUND_TRIPS = 10_000;
    /** One round trip in this many moves {@link #LARGE} bytes; the others {@link #SMALL}. */
    static final int LARGE_EVERY = 64;
    static final long SMALL = 8;
    static final long LARGE = 1 << 20;
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
    /** A round trip of the warm-up's that has not completed in this long ends it. */
    static final long REQUEST_BOUND_NANOS = 10_000_000_000L;
    private static final int NCCL_PTR_HOST = 1;

    private final NcclDoor.Log log;
    private final Supplier<NetPlugin> plugins;
    private final int roundTrips;
    private volatile boolean stop;
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
        boolean tcp = !providers.isEmpty() && providers.stream().allMatch(p -> p.equals(providers.get(0)))
                && providers.get(0).split(";")[0].equals("tcp");
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

    /** Asks the warm-up to end at its next round trip; it then closes what it opened. */
    void stop() {
        stop = true;
        stopped.countDown();
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
            int done = 0;
            if (!stopped.await(START_DELAY_MS, TimeUnit.MILLISECONDS)) {
                plugin = plugins.get();
                NcclDoor door = new NcclDoor(plugin, quiet(log));
                done = new Round(WarmUpCalls.Native.over(door, arena), arena).run();
            }
            log.info("warm-up: " + done + " round trips through the table on its own device in "
                    + (System.nanoTime() - begun) / 1_000_000 + " ms"
                    + (stop ? ", ended at NCCL's first listen, connect or transfer" : ""));
        } catch (Throwable t) {
            log.info("warm-up left off after " + (System.nanoTime() - begun) / 1_000_000 + " ms: " + t.getMessage());
        } finally {
            closeQuietly(plugin); // before the buffers and stubs go with the arena
            arena.close();
            if (plugin != null) {
                returnFreedMemory();
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

    /** One connection of the warm-up's device to itself, its round trips, and its close. */
    private final class Round {
        private final WarmUpCalls.Table calls;
        private final long out; // 16 longs of results NCCL-style, then a handle
        private final long sendBuf;
        private final long recvBuf;

        Round(WarmUpCalls.Table calls, Arena arena) {
            this.calls = calls;
            this.out = arena.allocate(16 * 8 + NcclDoor.HANDLE_BYTES, 64).address();
            MemorySegment buffers = arena.allocate(2 * LARGE, 4096);
            this.sendBuf = buffers.address();
            this.recvBuf = sendBuf + LARGE;
        }

        private long slot(int i) {
            return out + 8L * i;
        }

        int run() {
            long handle = slot(16);
            check(calls.init(slot(0)), "init");
            long ctx = CMemory.getLong(slot(0));
            long listen = 0;
            long send = 0;
            long recv = 0;
            long sendMr = 0;
            long recvMr = 0;
            try {
                check(calls.listen(ctx, 0, handle, slot(1)), "listen");
                listen = CMemory.getLong(slot(1));
                CMemory.putLong(slot(2), 0);
                CMemory.putLong(slot(3), 0);
                while (!stop && (CMemory.getLong(slot(2)) == 0 || CMemory.getLong(slot(3)) == 0)) {
                    if (CMemory.getLong(slot(2)) == 0) {
                        check(calls.connect(ctx, 0, handle, slot(2)), "connect");
                    }
                    if (CMemory.getLong(slot(3)) == 0) {
                        check(calls.accept(listen, slot(3)), "accept");
                    }
                }
                send = CMemory.getLong(slot(2));
                recv = CMemory.getLong(slot(3));
                if (stop) {
                    return 0;
                }
                check(calls.regMr(send, sendBuf, LARGE, NCCL_PTR_HOST, slot(4)), "regMr");
                sendMr = CMemory.getLong(slot(4));
                check(calls.regMr(recv, recvBuf, LARGE, NCCL_PTR_HOST, slot(5)), "regMr");
                recvMr = CMemory.getLong(slot(5));
                return roundTrips(send, recv, sendMr, recvMr);
            } finally {
                close(ctx, listen, send, recv, sendMr, recvMr);
            }
        }

        private int roundTrips(long send, long recv, long sendMr, long recvMr) {
            long data = slot(6);
            long sizes = slot(7);
            long tags = slot(8);
            long mhandles = slot(9);
            long sendRequest = slot(10);
            long recvRequest = slot(11);
            CMemory.putLong(data, recvBuf);
            CMemory.putInt(tags, 0);
            CMemory.putLong(mhandles, recvMr);
            int trips = 0;
            for (; trips < roundTrips && !stop; trips++) {
                long size = trips % LARGE_EVERY == LARGE_EVERY - 1 ? LARGE : SMALL;
                CMemory.putLong(sizes, size);
                CMemory.putLong(recvRequest, 0);
                long begun = System.nanoTime();
                while (CMemory.getLong(recvRequest) == 0 && going(begun, "irecv")) {
                    check(calls.irecv(recv, 1, data, sizes, tags, mhandles, recvRequest), "irecv");
                }
                CMemory.putLong(sendRequest, 0);
                while (CMemory.getLong(sendRequest) == 0 && going(begun, "isend")) {
                    check(calls.isend(send, sendBuf, size, 0, sendMr, sendRequest), "isend");
                    if (CMemory.getLong(sendRequest) == 0 && CMemory.getLong(recvRequest) != 0) { // progress
                        check(calls.test(CMemory.getLong(recvRequest), slot(12), slot(13)), "test");
                    }
                }
                if (!complete(CMemory.getLong(recvRequest), begun) || !complete(CMemory.getLong(sendRequest), begun)) {
                    break; // stopped: the close takes what is in flight
                }
            }
            return trips;
        }

        /** Tests {@code request} until it is done, as NCCL does; false when stopped first. */
        private boolean complete(long request, long begun) {
            long done = slot(12);
            CMemory.putInt(done, 0);
            while (CMemory.getInt(done) == 0 && going(begun, "test")) {
                check(calls.test(request, done, slot(13)), "test");
            }
            return CMemory.getInt(done) != 0;
        }

        /** Whether a round trip begun at {@code begun} goes on: not when stopped; past its bound, a failure. */
        private boolean going(long begun, String operation) {
            if (System.nanoTime() - begun > REQUEST_BOUND_NANOS) {
                throw new IllegalStateException(operation + ": a round trip did not complete in "
                        + REQUEST_BOUND_NANOS / 1_000_000_000 + " s");
            }
            return !stop;
        }

        private void close(long ctx, long listen, long send, long recv, long sendMr, long recvMr) {
            if (sendMr != 0) {
                calls.deregMr(send, sendMr);
            }
            if (recvMr != 0) {
                calls.deregMr(recv, recvMr);
            }
            if (send != 0) {
                calls.closeSend(send);
            }
            if (recv != 0) {
                calls.closeRecv(recv);
            }
            if (listen != 0) {
                calls.closeListen(listen);
            }
            calls.finalize(ctx);
        }
    }

    /** A call's result: anything but success ends the warm-up (the door logged why). */
    private static void check(int result, String operation) {
        if (result != NcclDoor.SUCCESS) {
            throw new IllegalStateException(operation + " returned ncclResult_t " + result);
        }
    }
}
