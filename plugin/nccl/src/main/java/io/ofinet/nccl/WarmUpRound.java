package io.ofinet.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.BooleanSupplier;

/**
 * The warm-up's work ({@link WarmUp}): its device connected to itself, its round trips, and their
 * close, all through {@code calls} as NCCL calls: a context, a listen, connect and accept in turn
 * until both communicators come, a registration of each side's 1 MiB buffer, then per round trip an
 * {@code irecv} and an {@code isend} (8 B; one in {@link #LARGE_EVERY} of 1 MiB), each tested to
 * done, the receive first. A stop ends it at its next call; what is in flight goes with the close.
 */
final class WarmUpRound {
    /** One round trip in this many moves {@link #LARGE} bytes; the others {@link #SMALL}. */
    static final int LARGE_EVERY = 64;
    static final long SMALL = 8;
    static final long LARGE = 1 << 20;
    /** A round trip that has not completed in this long ends the warm-up. */
    static final long REQUEST_BOUND_NANOS = 10_000_000_000L;
    private static final int NCCL_PTR_HOST = 1;

    private final WarmUpCalls.Table calls;
    private final int roundTrips;
    private final BooleanSupplier stopped;
    private final long out; // 16 longs of results NCCL-style, then a handle
    private final long sendBuf;
    private final long recvBuf;

    WarmUpRound(WarmUpCalls.Table calls, Arena arena, int roundTrips, BooleanSupplier stopped) {
        this.calls = calls;
        this.roundTrips = roundTrips;
        this.stopped = stopped;
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
            while (!stopped.getAsBoolean() && (CMemory.getLong(slot(2)) == 0 || CMemory.getLong(slot(3)) == 0)) {
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
        for (; trips < roundTrips && !stopped.getAsBoolean(); trips++) {
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
        return !stopped.getAsBoolean();
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
