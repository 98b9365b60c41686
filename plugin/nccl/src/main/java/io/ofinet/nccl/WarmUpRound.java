package io.ofinet.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The warm-up's work ({@link WarmUp}): its device connected to itself, its round trips, and their
 * close, all through {@code calls} as NCCL calls: a context, a listen, connect and accept in turn
 * until both communicators come, a registration of each side's 1 MiB buffer, then per round trip an
 * {@code irecv} and an {@code isend} (8 B; one in {@link #LARGE_EVERY} of 1 MiB), each tested to
 * done, the receive first. A stop ends it between round trips, with nothing in flight; anything
 * that takes longer than {@link #BOUND_NANOS} ends it with a failure.
 */
final class WarmUpRound {
    /** One round trip in this many moves {@link #LARGE} bytes; the others {@link #SMALL}. */
    static final int LARGE_EVERY = 64;
    static final long SMALL = 8;
    static final long LARGE = 1 << 20;
    /** A connection or a round trip that has not completed in this long ends the warm-up. */
    static final long BOUND_NANOS = 10_000_000_000L;
    private static final int NCCL_PTR_HOST = 1;

    private final WarmUpCalls.Table calls;
    private final int roundTrips;
    private final BooleanSupplier stopped;
    private final AtomicInteger done;
    private final long out; // 16 longs of results NCCL-style, then a handle
    private final long sendBuf;
    private final long recvBuf;

    /** Round trips through {@code calls}; {@code done} counts those completed, as they complete. */
    WarmUpRound(WarmUpCalls.Table calls, Arena arena, int roundTrips, BooleanSupplier stopped, AtomicInteger done) {
        this.calls = calls;
        this.roundTrips = roundTrips;
        this.stopped = stopped;
        this.done = done;
        this.out = arena.allocate(16 * 8 + NcclDoor.HANDLE_BYTES, 64).address();
        MemorySegment buffers = arena.allocate(2 * LARGE, 4096);
        this.sendBuf = buffers.address();
        this.recvBuf = sendBuf + LARGE;
    }

    private long slot(int i) {
        return out + 8L * i;
    }

    /**
     * Connects, makes its round trips until they are done or a stop (checked between round trips, so
     * that nothing is in flight at the close), and closes.
     */
    void run() {
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
            long begun = System.nanoTime();
            while (!stopped.getAsBoolean() && (CMemory.getLong(slot(2)) == 0 || CMemory.getLong(slot(3)) == 0)) {
                within(begun, "connect and accept");
                if (CMemory.getLong(slot(2)) == 0) {
                    check(calls.connect(ctx, 0, handle, slot(2)), "connect");
                }
                if (CMemory.getLong(slot(3)) == 0) {
                    check(calls.accept(listen, slot(3)), "accept");
                }
            }
            send = CMemory.getLong(slot(2));
            recv = CMemory.getLong(slot(3));
            if (stopped.getAsBoolean()) {
                return;
            }
            check(calls.regMr(send, sendBuf, LARGE, NCCL_PTR_HOST, slot(4)), "regMr");
            sendMr = CMemory.getLong(slot(4));
            check(calls.regMr(recv, recvBuf, LARGE, NCCL_PTR_HOST, slot(5)), "regMr");
            recvMr = CMemory.getLong(slot(5));
            roundTrips(send, recv, sendMr, recvMr);
        } finally {
            close(ctx, listen, send, recv, sendMr, recvMr);
        }
    }

    private void roundTrips(long send, long recv, long sendMr, long recvMr) {
        long data = slot(6);
        long sizes = slot(7);
        long tags = slot(8);
        long mhandles = slot(9);
        long sendRequest = slot(10);
        long recvRequest = slot(11);
        CMemory.putLong(data, recvBuf);
        CMemory.putInt(tags, 0);
        CMemory.putLong(mhandles, recvMr);
        for (int trip = 0; trip < roundTrips && !stopped.getAsBoolean(); trip++) {
            long size = trip % LARGE_EVERY == LARGE_EVERY - 1 ? LARGE : SMALL;
            CMemory.putLong(sizes, size);
            CMemory.putLong(recvRequest, 0);
            long begun = System.nanoTime();
            while (CMemory.getLong(recvRequest) == 0) {
                within(begun, "irecv");
                check(calls.irecv(recv, 1, data, sizes, tags, mhandles, recvRequest), "irecv");
            }
            CMemory.putLong(sendRequest, 0);
            while (CMemory.getLong(sendRequest) == 0) {
                within(begun, "isend");
                check(calls.isend(send, sendBuf, size, 0, sendMr, sendRequest), "isend");
                if (CMemory.getLong(sendRequest) == 0) { // not yet: progress, as NCCL's proxy does
                    check(calls.test(CMemory.getLong(recvRequest), slot(12), slot(13)), "test");
                }
            }
            complete(CMemory.getLong(recvRequest), begun);
            complete(CMemory.getLong(sendRequest), begun);
            done.incrementAndGet();
        }
    }

    /** Tests {@code request} until it is done, as NCCL does. */
    private void complete(long request, long begun) {
        long doneOut = slot(12);
        CMemory.putInt(doneOut, 0);
        while (CMemory.getInt(doneOut) == 0) {
            within(begun, "test");
            check(calls.test(request, doneOut, slot(13)), "test");
        }
    }

    /** What began at {@code begun} has not run past {@link #BOUND_NANOS}; else it fails. */
    private static void within(long begun, String operation) {
        if (System.nanoTime() - begun > BOUND_NANOS) {
            throw new IllegalStateException(operation + " did not complete in " + BOUND_NANOS / 1_000_000_000
                    + " s");
        }
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

    /** A call's result: anything but success ends the warm-up (the door logged why). */
    private static void check(int result, String operation) {
        if (result != NcclDoor.SUCCESS) {
            throw new IllegalStateException(operation + " returned ncclResult_t " + result);
        }
    }
}
