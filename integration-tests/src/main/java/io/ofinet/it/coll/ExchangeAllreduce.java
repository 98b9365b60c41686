package io.ofinet.it.coll;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The allreduce of two ranks in one step: each rank sends its whole buffer to the other, receives
 * the other's into {@code tmp} (which holds the whole buffer), and adds it to its own.
 *
 * <p>The ring moves the same bytes in two steps of half the size each, with a reduction between
 * them. Up to {@link Collectives#EXCHANGE_MAX_BYTES} one message each way measured faster, on tcp
 * on loopback and on shm, and steadier; above it the ring's pipelined chunks, which overlap the
 * reduction with the transfers, are faster (docs/PERFORMANCE.md, "The two-rank allreduce in one
 * exchange"). Splitting the exchange into two messages each way measured slower than one.
 *
 * <p>The receive goes out before the send, so that its announcement reaches the peer before the
 * peer's data is ready. The sum waits until the send has completed as well as the receive: it
 * writes into the buffer the send reads. Not thread-safe; allocates nothing per run.
 */
final class ExchangeAllreduce {
    private final Ring ring;
    private final FloatSum sum;

    ExchangeAllreduce(Ring ring, FloatSum sum) {
        if (ring.size() != 2) {
            throw new IllegalArgumentException("the allreduce in one exchange is for two ranks, not " + ring.size());
        }
        this.ring = ring;
        this.sum = sum;
    }

    /** Sums {@code data} (count float32 elements, native byte order) over both ranks, in place. */
    void run(ByteBuffer data, long count, ByteBuffer tmp, Handles.MrHandle mr) throws NetException {
        ByteBuffer out = slice(data, count);
        ByteBuffer in = slice(tmp, count);
        int tag = ring.reserveTags(1);
        Backoff backoff = ring.backoff();
        backoff.reset();
        Handles.Request recv;
        while ((recv = ring.irecv(in, tag, mr)) == null) {
            backoff.idle();
        }
        backoff.reset();
        Handles.Request send;
        while ((send = ring.isend(out, tag, mr)) == null) {
            backoff.idle();
        }
        boolean received = false;
        boolean sent = false;
        backoff.reset();
        while (!received || !sent) {
            boolean progressed = false;
            if (!received && ring.test(recv)) {
                received = true;
                progressed = true;
            }
            if (!sent && ring.test(send)) {
                sent = true;
                progressed = true;
            }
            if (progressed) {
                backoff.reset();
            } else {
                backoff.idle();
            }
        }
        sum.add(out, in);
    }

    /** The first {@code count} elements of {@code buffer}, in native byte order. */
    private static ByteBuffer slice(ByteBuffer buffer, long count) {
        return buffer.duplicate().clear().limit((int) (count * 4)).slice().order(ByteOrder.nativeOrder());
    }
}
