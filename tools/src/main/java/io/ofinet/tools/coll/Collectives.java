package io.ofinet.tools.coll;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Collectives on a ring, on float32 data in registered direct buffers (native byte order); with two
 * ranks a small allreduce is one exchange instead. Every rank calls the same collective with the
 * same sizes, in the same order.
 */
public final class Collectives {
    /**
     * With two ranks, allreduces of up to this many bytes are one exchange of the whole buffer and a
     * sum; larger ones, and every allreduce of more ranks, take the pipelined ring. On tcp on
     * loopback the exchange measured faster up to 1 MiB and the ring from 2 MiB; on shm the exchange
     * was faster at 256 KiB and even at 1 and 2 MiB
     * (docs/measurements/2026-11-24-the-two-rank-allreduce-in-one-exchange.md).
     */
    public static final long EXCHANGE_MAX_BYTES = 1L << 20;

    private final Ring ring;
    private final PipelinedAllreduce pipelined;
    private final long exchangeMaxBytes;
    private final FloatSum sum = new FloatSum();

    public Collectives(Ring ring) {
        this(ring, PipelinedAllreduce.CHUNK_BYTES);
    }

    /**
     * The allreduce's head on {@code tcp;ofi_rxm}: each block's first 8 KiB, a send of its own ahead
     * of the rest, which the plugin sends at once as an eager message (within its {@code eagerMaxSize}
     * there, 8 KiB when this was measured, 32 KiB since) while the rest waits for the receiver's
     * announcement. Measured faster on tcp, and much slower on shm
     * (docs/measurements/2026-11-24-the-first-bytes-of-a-block-sent-at-once.md).
     */
    public static final long HEAD_BYTES_ON_TCP = 8192;

    /** @param chunkBytes the allreduce's largest message ({@link PipelinedAllreduce}) */
    public Collectives(Ring ring, long chunkBytes) {
        this(ring, chunkBytes, 0);
    }

    /**
     * @param chunkBytes the allreduce's largest message ({@link PipelinedAllreduce})
     * @param headBytes the first part of each of the allreduce's blocks, sent ahead of the rest
     *     ({@link #HEAD_BYTES_ON_TCP}); 0: none
     */
    public Collectives(Ring ring, long chunkBytes, long headBytes) {
        this(ring, chunkBytes, headBytes, EXCHANGE_MAX_BYTES);
    }

    /**
     * @param chunkBytes the pipelined ring's largest message ({@link PipelinedAllreduce})
     * @param headBytes the first part of each of the ring's blocks, sent ahead of the rest
     *     ({@link #HEAD_BYTES_ON_TCP}); 0: none
     * @param exchangeMaxBytes with two ranks, the largest allreduce made of one exchange
     *     ({@link #EXCHANGE_MAX_BYTES}); 0: every allreduce takes the ring
     */
    public Collectives(Ring ring, long chunkBytes, long headBytes, long exchangeMaxBytes) {
        if (exchangeMaxBytes < 0) {
            throw new IllegalArgumentException("the exchange's largest allreduce is negative: " + exchangeMaxBytes);
        }
        this.ring = ring;
        this.pipelined = new PipelinedAllreduce(ring, chunkBytes, headBytes, sum);
        this.exchangeMaxBytes = exchangeMaxBytes;
    }

    /** How this engine runs an allreduce: {@code ring}, or by exchange up to a size and the ring above it. */
    public String allreduceWay() {
        return exchanges() ? "exchange up to " + exchangeMaxBytes + " B, ring above" : "ring";
    }

    /** How this engine sums: {@code vector}, {@code fused} or {@code tiled} ({@link FloatSum}). */
    public String sumWay() {
        return sum.toString();
    }

    /** Bytes of block {@code i} of {@code count} elements split into {@code parts}. */
    static long blockStart(long count, int parts, int i) {
        return count / parts * i + Math.min(i, count % parts);
    }

    private static ByteBuffer block(ByteBuffer buffer, long count, int parts, int i) {
        long start = blockStart(count, parts, i);
        long end = blockStart(count, parts, i + 1);
        return buffer.duplicate().clear().position((int) (start * 4)).limit((int) (end * 4)).slice();
    }

    /** Each rank sends {@code data} to the next and receives the previous rank's into {@code out}. */
    public void sendrecv(ByteBuffer data, ByteBuffer out, Handles.MrHandle mr) throws NetException {
        ring.step(data.duplicate().clear(), out.duplicate().clear(), mr);
    }

    /** Rank 0's {@code data} to every rank along the ring: each receives, then forwards, under one tag. */
    public void broadcast(ByteBuffer data, Handles.MrHandle mr) throws NetException {
        int rank = ring.rank();
        int tag = ring.nextTag();
        if (rank > 0) {
            ring.step(null, data.duplicate().clear(), mr, tag);
        }
        if (rank < ring.size() - 1) {
            ring.step(data.duplicate().clear(), null, mr, tag);
        }
    }

    /** Every rank's {@code count} elements, at its index in {@code out} (size × count elements). */
    public void allgather(ByteBuffer out, long count, Handles.MrHandle mr) throws NetException {
        int n = ring.size();
        int r = ring.rank();
        for (int s = 0; s < n - 1; s++) {
            ring.step(block(out, count * n, n, Math.floorMod(r - s, n)),
                    block(out, count * n, n, Math.floorMod(r - s - 1, n)), mr);
        }
    }

    /**
     * Sums {@code data} (count elements) over all ranks, block by block: rank r ends with the sum
     * of block r. {@code tmp} holds one block.
     */
    public void reduceScatter(ByteBuffer data, long count, ByteBuffer tmp, Handles.MrHandle mr) throws NetException {
        int n = ring.size();
        int r = ring.rank();
        for (int s = 0; s < n - 1; s++) {
            int sendBlock = Math.floorMod(r - s - 1, n);
            int recvBlock = Math.floorMod(r - s - 2, n);
            ByteBuffer target = block(data, count, n, recvBlock);
            ByteBuffer in = tmp.duplicate().clear().limit(target.capacity()).slice();
            ring.step(block(data, count, n, sendBlock), in, mr);
            sum.add(target, in);
        }
    }

    /**
     * Sums {@code data} (count elements) over all ranks, in place: with two ranks and up to
     * {@code exchangeMaxBytes}, in one exchange ({@code exchangeAllreduce}); else ring
     * reduce-scatter, then allgather, in chunks pipelined across the steps ({@link
     * PipelinedAllreduce}). {@code tmp} holds {@link #allreduceTmpBytes(long)} bytes at least.
     *
     * @throws IllegalArgumentException when {@code tmp} is smaller than that
     */
    public void allreduce(ByteBuffer data, long count, ByteBuffer tmp, Handles.MrHandle mr) throws NetException {
        long needed = allreduceTmpBytes(count);
        if (tmp.capacity() < needed) {
            throw new IllegalArgumentException("the allreduce of " + count + " elements on " + ring.size()
                    + " ranks needs " + needed + " bytes of tmp, not " + tmp.capacity());
        }
        if (inOneExchange(count)) {
            exchangeAllreduce(data, count, tmp, mr);
        } else {
            pipelined.run(data, count, tmp, mr);
        }
    }

    /** The bytes of {@code tmp} an allreduce of {@code count} elements needs: all in one exchange, else a block. */
    public long allreduceTmpBytes(long count) {
        return (inOneExchange(count) ? count : blockStart(count, ring.size(), 1)) * 4;
    }

    /** Whether allreduces up to {@code exchangeMaxBytes} go by exchange: with two ranks, and the exchange on. */
    private boolean exchanges() {
        return ring.size() == 2 && exchangeMaxBytes > 0;
    }

    private boolean inOneExchange(long count) {
        return exchanges() && count * 4 <= exchangeMaxBytes;
    }

    /**
     * The allreduce of two ranks in one step: each sends its whole buffer to the other, receives the
     * other's into {@code tmp}, and adds it to its own. The ring moves the same bytes in two steps of
     * half the size with a sum between them; one message each way measured faster up to 1 MiB, and
     * steadier, and two each way, to overlap a sum with a transfer, slower than either
     * (docs/measurements/2026-11-24-the-two-rank-allreduce-in-one-exchange.md). The step posts the receive
     * first, so that its announcement is on its way before the peer's send looks for it, and returns
     * once the send has completed as well: the sum writes into the buffer the send reads.
     */
    private void exchangeAllreduce(ByteBuffer data, long count, ByteBuffer tmp, Handles.MrHandle mr)
            throws NetException {
        ByteBuffer out = block(data, count, 1, 0).order(ByteOrder.nativeOrder());
        ByteBuffer in = block(tmp, count, 1, 0).order(ByteOrder.nativeOrder());
        ring.step(out, in, mr);
        sum.add(out, in);
    }

    /** The first element of block {@code i} of {@code count} elements split into {@code parts}. */
    public static long blockStartOf(long count, int parts, int i) {
        return blockStart(count, parts, i);
    }

    /** The elements of block {@code i} of {@code count} split over the ring. */
    public long blockElements(long count, int i) {
        return blockStart(count, ring.size(), i + 1) - blockStart(count, ring.size(), i);
    }

    public Ring ring() {
        return ring;
    }
}
