package io.ofinet.tools.coll;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The ring allreduce (reduce-scatter, then allgather: 2(n − 1) steps, each sending one block to the
 * next rank and receiving one from the previous) with every block cut into chunks, and the chunks of
 * all steps pipelined: chunk j of step s goes out as soon as chunk j of step s − 1 has arrived and
 * been reduced, while other chunks are on the wire. Transfers overlap the reduction and each other,
 * and no step waits for the whole of the one before.
 *
 * <p>Sends and receives are posted in the same order on every rank — step by step, chunk by chunk —
 * as the plugin's matching requires, at most {@link #WINDOW} of each outstanding. Receive k goes
 * out once send k − 1 has: posting a receive sends its announcement, which takes as long as the
 * write that the peer's announcement lets go, and the write should not wait behind it. A receive
 * into {@code tmp} also waits until the chunk received there before is reduced; every other receive
 * is posted as soon as that order and the window allow, so that its announcement reaches the sender
 * before the sender's data is ready rather than after. That includes an allgather receive into a
 * chunk this rank still sends in the reduce-scatter, which is safe by the ring's causality: the
 * fully reduced chunk can only come back once the next rank has received this rank's send of it in
 * full, and the plugin reads a send's buffer only until its data has been delivered. On tcp on
 * loopback, two ranks, this took the 1 MiB allreduce from 360 to 310 µs
 * (docs/measurements/2026-11-24-allreduce-receives-posted-early.md).
 *
 * <p>A block may also have a <b>head</b>: its first {@code headBytes}, a part of its own before the
 * chunks. A head no larger than the plugin's eager size goes out at once, while the rest waits for
 * the receiver's announcement; the receive after a head is posted before the head's send, so that
 * its announcement is not delayed by it. On tcp this measured faster, on shm much slower
 * ({@link Collectives#HEAD_BYTES_ON_TCP}). Blocks no larger than {@link #HEAD_SPAN} heads get none.
 * Not thread-safe: a run keeps its state in the instance.
 */
final class PipelinedAllreduce {
    /**
     * Bytes per chunk by default, at most; blocks are cut into at most {@link #MAX_CHUNKS} equal
     * chunks. On {@code tcp;ofi_rxm} on loopback smaller chunks measured slower
     * (docs/measurements/2026-11-23-allreduce-against-open-mpi-bin-ofinet-compare-allreduce.md):
     * a block goes whole up to 4 MiB.
     */
    static final long CHUNK_BYTES = 4L << 20;
    static final int MAX_CHUNKS = 16;
    /** Blocks get a head only when larger than this many heads. */
    static final int HEAD_SPAN = 4;
    /** Sends and receives outstanding, each. */
    static final int WINDOW = 8;

    private final Ring ring;
    private final long chunkBytes;
    private final long headBytes;
    private final FloatSum sum;

    // The state of the run in progress: grown as needed and reused, so that a run allocates no arrays.
    private Handles.Request[] sends = new Handles.Request[0];
    private Handles.Request[] recvs = new Handles.Request[0];
    private boolean[] sent = new boolean[0];
    private boolean[] received = new boolean[0];
    private ByteBuffer data;
    private ByteBuffer tmp;
    private Handles.MrHandle mr;
    private long count;
    /** Chunks each block is cut into after its head. */
    private int chunks;
    /** Parts of a block in all: its chunks, and its head when it has one. */
    private int parts;
    /** Elements of each block's head, or 0 when blocks have none. */
    private long head;
    private int total;
    private int firstTag;
    private int nextSend;
    private int nextRecv;
    private int sendsOut;
    private int recvsOut;
    private int done;

    PipelinedAllreduce(Ring ring, long chunkBytes, long headBytes, FloatSum sum) {
        if (chunkBytes < 4) {
            throw new IllegalArgumentException("a chunk holds one float32 at least: " + chunkBytes + " bytes");
        }
        if (headBytes < 0 || headBytes % 4 != 0) {
            throw new IllegalArgumentException("a head holds whole float32s: " + headBytes + " bytes");
        }
        this.ring = ring;
        this.chunkBytes = chunkBytes;
        this.headBytes = headBytes;
        this.sum = sum;
    }

    /** Sums {@code data} (count float32 elements, native byte order) over all ranks, in place; {@code tmp} holds a block. */
    void run(ByteBuffer data, long count, ByteBuffer tmp, Handles.MrHandle mr) throws NetException {
        int n = ring.size();
        long largestBlock = Collectives.blockStart(count, n, 1) * 4;
        long smallestBlock = (count - Collectives.blockStart(count, n, n - 1)) * 4;
        head = headBytes > 0 && smallestBlock > HEAD_SPAN * headBytes ? headBytes / 4 : 0;
        chunks = (int) Math.max(1, Math.min(MAX_CHUNKS, (largestBlock - head * 4 + chunkBytes - 1) / chunkBytes));
        parts = chunks + (head > 0 ? 1 : 0);
        total = 2 * (n - 1) * parts;
        if (sends.length < total) {
            sends = new Handles.Request[total];
            recvs = new Handles.Request[total];
            sent = new boolean[total];
            received = new boolean[total];
        }
        Arrays.fill(sent, 0, total, false);
        Arrays.fill(received, 0, total, false);
        this.data = data;
        this.tmp = tmp;
        this.mr = mr;
        this.count = count;
        firstTag = ring.reserveTags(total);
        nextSend = 0;
        nextRecv = 0;
        sendsOut = 0;
        recvsOut = 0;
        done = 0;
        Backoff backoff = ring.backoff();
        backoff.reset();
        try {
            while (done < 2 * total) {
                // A receive goes out only after the send before it (postRecvs), so that announcing
                // receives never delays a write; the ones the new sends let go follow them at once.
                boolean progressed = postRecvs();
                progressed |= postSends();
                progressed |= postRecvs();
                progressed |= testSends();
                progressed |= testRecvs();
                if (progressed) {
                    backoff.reset();
                } else {
                    backoff.idle();
                }
            }
        } finally {
            this.data = null;
            this.tmp = null;
            this.mr = null;
            Arrays.fill(sends, 0, total, null);
            Arrays.fill(recvs, 0, total, null);
        }
    }

    /**
     * Posts the receives that may go now, in order: receive k once send k − 1 has been posted. Its
     * announcement takes as long to post as the data write the peer's
     * announcement lets go, so the write comes first. The receive after a head goes before the
     * head's send: the head is sent without an announcement, and the rest's should not wait for it.
     */
    private boolean postRecvs() throws NetException {
        int n = ring.size();
        boolean progressed = false;
        while (nextRecv < total && recvsOut < WINDOW && nextRecv <= nextSend + (afterHead(nextRecv) ? 1 : 0)
                && recvReady(nextRecv, parts, n, received)) {
            int s = nextRecv / parts;
            int block = recvBlock(s, ring.rank(), n);
            int j = nextRecv % parts;
            ByteBuffer in = s < n - 1 ? tmpPart(block, j) : part(data, block, j);
            Handles.Request q = ring.irecv(in, firstTag + nextRecv, mr);
            if (q == null) {
                break;
            }
            recvs[nextRecv++] = q;
            recvsOut++;
            progressed = true;
        }
        return progressed;
    }

    /** Whether part {@code k} follows a head: its receive's announcement goes out before the head's send. */
    private boolean afterHead(int k) {
        return head > 0 && k % parts == 1;
    }

    /**
     * Posts the sends whose chunks are ready (received and reduced at the step before), in order; a
     * head once the receive after it is posted.
     */
    private boolean postSends() throws NetException {
        int n = ring.size();
        boolean progressed = false;
        while (nextSend < total && sendsOut < WINDOW && (nextSend < parts || received[nextSend - parts])
                && (!afterHead(nextSend + 1) || nextRecv > nextSend + 1)) {
            int block = sendBlock(nextSend / parts, ring.rank(), n);
            ByteBuffer out = part(data, block, nextSend % parts);
            Handles.Request q = ring.isend(out, firstTag + nextSend, mr);
            if (q == null) {
                break;
            }
            sends[nextSend++] = q;
            sendsOut++;
            progressed = true;
        }
        return progressed;
    }

    private boolean testSends() throws NetException {
        boolean progressed = false;
        for (int k = nextSend - sendsOut; k < nextSend; k++) {
            if (!sent[k] && ring.test(sends[k])) {
                sent[k] = true;
                sends[k] = null;
                progressed = true;
                done++;
            }
        }
        while (sendsOut > 0 && sent[nextSend - sendsOut]) {
            sendsOut--;
        }
        return progressed;
    }

    /** Tests the outstanding receives, and reduces what a reduce-scatter step brought. */
    private boolean testRecvs() throws NetException {
        int n = ring.size();
        boolean progressed = false;
        for (int k = nextRecv - recvsOut; k < nextRecv; k++) {
            if (!received[k] && ring.test(recvs[k])) {
                recvs[k] = null;
                int s = k / parts;
                if (s < n - 1) {
                    int block = recvBlock(s, ring.rank(), n);
                    sum.add(part(data, block, k % parts), tmpPart(block, k % parts));
                }
                received[k] = true;
                progressed = true;
                done++;
            }
        }
        while (recvsOut > 0 && received[nextRecv - recvsOut]) {
            recvsOut--;
        }
        return progressed;
    }

    /**
     * Whether receive {@code k} may be posted: always, but for a reduce-scatter step after the
     * first, whose chunk in {@code tmp} must have been reduced from the receive there before.
     */
    private static boolean recvReady(int k, int parts, int n, boolean[] received) {
        int s = k / parts;
        return s == 0 || s >= n - 1 || received[k - parts];
    }

    /** The block rank {@code r} sends at step {@code s}: reduce-scatter steps first, then allgather ones. */
    static int sendBlock(int s, int r, int n) {
        return s < n - 1 ? Math.floorMod(r - s - 1, n) : Math.floorMod(r - (s - (n - 1)), n);
    }

    /** The block rank {@code r} receives at step {@code s}. */
    static int recvBlock(int s, int r, int n) {
        return s < n - 1 ? Math.floorMod(r - s - 2, n) : Math.floorMod(r - (s - (n - 1)) - 1, n);
    }

    /** Part {@code j} of block {@code block} in {@code buffer}, laid out as the data: its head, or a chunk after it. */
    private ByteBuffer part(ByteBuffer buffer, int block, int j) {
        int n = ring.size();
        long start = Collectives.blockStart(count, n, block);
        long elements = Collectives.blockStart(count, n, block + 1) - start;
        return slice(buffer, start + partStart(elements, j), start + partStart(elements, j + 1));
    }

    /**
     * Where part {@code j} of block {@code block} is received in {@code tmp}: at part {@code j}'s
     * place in the largest block, so that part {@code j} of every block has the same place and no
     * other part's (blocks differ by an element, and so would their parts' places).
     */
    private ByteBuffer tmpPart(int block, int j) {
        int n = ring.size();
        long largest = Collectives.blockStart(count, n, 1);
        long elements = Collectives.blockStart(count, n, block + 1) - Collectives.blockStart(count, n, block);
        long from = partStart(largest, j);
        return slice(tmp, from, from + partStart(elements, j + 1) - partStart(elements, j));
    }

    /**
     * Where part {@code j} of a block of {@code elements} starts: the head first, then the chunks,
     * equal but for an element.
     */
    private long partStart(long elements, int j) {
        if (head == 0) {
            return Collectives.blockStart(elements, chunks, j);
        }
        return j == 0 ? 0 : head + Collectives.blockStart(elements - head, chunks, j - 1);
    }

    /** Elements {@code from} to {@code to} of {@code buffer}, in native byte order. */
    private static ByteBuffer slice(ByteBuffer buffer, long from, long to) {
        return buffer.duplicate().clear().position((int) (from * 4)).limit((int) (to * 4)).slice()
                .order(ByteOrder.nativeOrder());
    }
}
