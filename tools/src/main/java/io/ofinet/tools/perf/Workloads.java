package io.ofinet.tools.perf;

import io.ofinet.plugin.Handles;
import io.ofinet.tools.coll.Collectives;
import io.ofinet.tools.coll.Ring;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * What each test does in one iteration, and the check of its result after the timed iterations:
 * every rank fills what it sends with values that name it, and counts what it received wrong.
 *
 * <p>In pingpong each rank sends from its own buffer and receives into another, and posts each
 * receive before the send ahead of it, as {@code fi_pingpong} and the C driver through NCCL's table
 * do ({@link Ring#pingpong}). With {@code --echo} the second rank sends back the buffer it has just
 * received instead, so it cannot post its next receive into that buffer first: each message is
 * posted and awaited in turn. On shm that copy reads memory the other rank's CPU has just written,
 * which costs two to three times as much at 64 KiB – 1 MiB on this machine, depending on where the
 * host runs the two CPUs (docs/PERFORMANCE.md).
 */
final class Workloads {
    private final Ring ring;
    private final Collectives coll;
    private final boolean echo;
    private final int window;

    /**
     * The buffers of one size: {@code a} and {@code b} of the size each, {@code out} allgather's n
     * blocks, {@code ack} drained's acknowledgement, the first byte of {@code b} (one even at size 0).
     */
    record Buffers(ByteBuffer a, ByteBuffer b, ByteBuffer out, ByteBuffer ack, long size) {
        /** The buffers of {@code size} in {@code data}: {@code a} at 0, {@code b} at its middle (page-aligned). */
        static Buffers of(ByteBuffer data, long size, String test, int ranks) {
            ByteBuffer a = region(data, 0, size);
            long middle = Math.max(64, (data.capacity() - 64) / 2);
            ByteBuffer b = region(data, middle, size);
            return new Buffers(a, b, test.equals("allgather") ? region(data, 0, size * ranks) : a,
                    region(data, middle, 1), size);
        }

        /** float32 elements of the size. */
        long count() {
            return size / 4;
        }
    }

    /** {@code window}: sendrecv's requests in flight, drained's requests posted per window. */
    Workloads(Ring ring, Collectives coll, boolean echo, int window) {
        this.ring = ring;
        this.coll = coll;
        this.echo = echo;
        this.window = window;
    }

    static ByteBuffer region(ByteBuffer data, long offset, long length) {
        return data.duplicate().clear().position((int) offset).limit((int) (offset + length)).slice()
                .order(ByteOrder.nativeOrder());
    }

    static float value(int rank, long i) {
        return (rank + 1) + (i % 13);
    }

    static void fill(ByteBuffer b, int rank, long elements) {
        for (long i = 0; i < elements; i++) {
            b.putFloat((int) (i * 4), value(rank, i));
        }
    }

    /**
     * A point-to-point test's message of {@code size} bytes: its float32s as {@link #fill}, and the
     * bytes past the last whole one valued too, so that every byte is checked.
     */
    static void fillMessage(ByteBuffer b, int rank, long size) {
        fill(b, rank, size / 4);
        for (long j = size / 4 * 4; j < size; j++) {
            b.put((int) j, tailByte(rank, j));
        }
    }

    private static byte tailByte(int rank, long j) {
        return (byte) (1 + (rank * 31 + j) % 100); // never 0xFF, the poison
    }

    /** Marks {@code size} bytes as not received: every float32 of them NaN, which equals nothing. */
    static void poison(ByteBuffer b, long size) {
        int j = 0;
        for (; j + 8 <= size; j += 8) {
            b.putLong(j, -1L);
        }
        for (; j < size; j++) {
            b.put(j, (byte) 0xFF);
        }
    }

    /** The bytes of a {@link #fillMessage} message from {@code rank} that arrived wrong, or not at all. */
    static long wrongMessage(ByteBuffer b, int rank, long size) {
        long wrong = wrong(b, rank, size / 4);
        for (long j = size / 4 * 4; j < size; j++) {
            wrong += b.get((int) j) == tailByte(rank, j) ? 0 : 1;
        }
        return wrong;
    }

    private static long wrong(ByteBuffer b, int rank, long elements) {
        long wrong = 0;
        for (long i = 0; i < elements; i++) {
            wrong += b.getFloat((int) (i * 4)) == value(rank, i) ? 0 : 1;
        }
        return wrong;
    }

    /** Runs {@code iterations} of {@code test}. */
    void iterate(String test, int iterations, Buffers x, Handles.MrHandle mr) throws Exception {
        int r = ring.rank();
        switch (test) {
            case "pingpong" -> {
                if (!echo) {
                    ring.pingpong(x.a(), x.b(), mr, iterations, r == 0);
                    return;
                }
                for (int i = 0; i < iterations; i++) {
                    if (r == 0) {
                        ring.step(x.a(), null, mr);
                        ring.step(null, x.b(), mr);
                    } else {
                        ring.step(null, x.b(), mr);
                        ring.step(x.b(), null, mr);
                    }
                }
            }
            case "sendrecv" -> ring.stream(x.a(), mr, iterations, window, r == 0);
            // The acknowledgements in b, apart from the messages.
            case "drained" -> ring.drain(x.a(), x.ack(), mr, iterations, window, r == 0);
            case "exchange" -> {
                for (int i = 0; i < iterations; i++) {
                    ring.step(x.a(), x.b(), mr);
                }
            }
            case "allreduce" -> {
                for (int i = 0; i < iterations; i++) {
                    coll.allreduce(x.a(), x.count(), x.b(), mr);
                }
            }
            default -> {
                for (int i = 0; i < iterations; i++) {
                    coll.allgather(x.out(), x.count(), mr);
                }
            }
        }
    }

    /** One iteration of {@code test} with known values; returns how many elements this rank received wrong. */
    long verify(String test, Buffers x, Handles.MrHandle mr) throws Exception {
        int n = ring.size();
        int r = ring.rank();
        long count = x.count();
        long size = x.size();
        switch (test) {
            case "pingpong" -> {
                fillMessage(x.a(), r, size);
                poison(x.b(), size);
                if (!echo) {
                    ring.pingpong(x.a(), x.b(), mr, 1, r == 0);
                    return wrongMessage(x.b(), 1 - r, size);
                }
                if (r == 0) {
                    ring.step(x.a(), null, mr);
                    ring.step(null, x.b(), mr);
                    return wrongMessage(x.b(), 0, size);
                }
                ring.step(null, x.b(), mr);
                long wrong = wrongMessage(x.b(), 0, size);
                ring.step(x.b(), null, mr);
                return wrong;
            }
            case "sendrecv", "drained" -> {
                if (r == 0) {
                    fillMessage(x.a(), 0, size);
                } else {
                    poison(x.a(), size);
                }
                if (test.equals("sendrecv")) {
                    ring.stream(x.a(), mr, 1, 1, r == 0);
                } else {
                    ring.drain(x.a(), x.ack(), mr, 1, 1, r == 0);
                }
                return r == 1 ? wrongMessage(x.a(), 0, size) : 0;
            }
            case "exchange" -> {
                fillMessage(x.a(), r, size);
                poison(x.b(), size);
                ring.step(x.a(), x.b(), mr);
                return wrongMessage(x.b(), (r + n - 1) % n, size);
            }
            case "allreduce" -> {
                fill(x.a(), r, count);
                coll.allreduce(x.a(), count, x.b(), mr);
                return wrongSum(x.a(), count, n);
            }
            default -> {
                poison(x.out(), (long) n * count * 4);
                fill(region(x.out(), (long) r * count * 4, count * 4), r, count);
                coll.allgather(x.out(), count, mr);
                long wrong = 0;
                for (int k = 0; k < n; k++) {
                    wrong += wrong(region(x.out(), (long) k * count * 4, count * 4), k, count);
                }
                return wrong;
            }
        }
    }

    /** busbw ÷ algbw of {@code test}, as nccl-tests reports it. */
    static double busFactor(String test, int n) {
        return switch (test) {
            case "allreduce" -> 2.0 * (n - 1) / n;
            case "allgather" -> (n - 1.0) / n;
            default -> 1;
        };
    }

    /** Element {@code i} of the sum over {@code n} ranks of what each filled. */
    private static float sum(int n, long i) {
        return n * (n + 1) / 2f + n * (i % 13);
    }

    private static long wrongSum(ByteBuffer a, long count, int n) {
        long wrong = 0;
        for (long i = 0; i < count; i++) {
            wrong += a.getFloat((int) (i * 4)) == sum(n, i) ? 0 : 1;
        }
        return wrong;
    }

    /** The check test: every collective at the buffers' size, verified. */
    long checkCollectives(Buffers x, Handles.MrHandle mr) throws Exception {
        int n = ring.size();
        int r = ring.rank();
        long count = x.count();
        ByteBuffer a = x.a();
        fill(a, r, count);
        poison(x.b(), count * 4);
        coll.sendrecv(a, x.b(), mr);
        long wrong = wrong(x.b(), Math.floorMod(r - 1, n), count);
        fill(a, r, count);
        coll.broadcast(a, mr);
        wrong += wrong(a, 0, count);
        fill(a, r, count);
        coll.reduceScatter(a, count, x.b(), mr);
        long start = Collectives.blockStartOf(count, n, r);
        long elements = coll.blockElements(count, r);
        for (long i = start; i < start + elements; i++) {
            wrong += a.getFloat((int) (i * 4)) == sum(n, i) ? 0 : 1;
        }
        fill(a, r, count);
        coll.allreduce(a, count, x.b(), mr);
        wrong += wrongSum(a, count, n);
        System.out.printf(Locale.ROOT, "rank %d: sendrecv, broadcast, reduce-scatter, allreduce of %d B: %d wrong%n",
                r, x.size(), wrong);
        return wrong;
    }
}
