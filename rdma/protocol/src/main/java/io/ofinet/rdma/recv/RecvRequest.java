package io.ofinet.rdma.recv;

import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.wire.Limits;

/**
 * An outstanding grouped receive: up to 8 buffers with tags, under as many consecutive sequence
 * numbers from {@link #seq}; each buffer has its tag's next ordinal, and takes the send with the
 * same tag and ordinal. It is done when its announcement (if it needed one) has
 * been written, every buffer has its eager message, its tagged message or all its segments, and
 * none of its tagged receives is still posted.
 */
public final class RecvRequest extends Request implements RmaOp.Owner {
    private final RecvComm comm;
    int seq;
    int buffers;
    final long[] address = new long[Limits.MAX_RECVS];
    final long[] capacity = new long[Limits.MAX_RECVS];
    final int[] tag = new int[Limits.MAX_RECVS];
    /** Per buffer: how many buffers with its tag the communicator's receives had before it. */
    final int[] ordinal = new int[Limits.MAX_RECVS];
    /** Per buffer: its registration, for an announcement sent after the post. */
    final io.ofinet.mr.MrHandle[] mrs = new io.ofinet.mr.MrHandle[Limits.MAX_RECVS];
    /** Whether its announcement went out (at its post, or later while the sender ran ahead). */
    boolean announced;
    /** Whether the sender had said it closed when it was posted: its failure then says so. */
    boolean postedAfterClose;
    final long[] received = new long[Limits.MAX_RECVS];
    final int[] segmentsExpected = new int[Limits.MAX_RECVS];
    final int[] segmentsArrived = new int[Limits.MAX_RECVS];
    int buffersDone;
    /** Buffers something was assigned to: an eager message, a request to send, or a written segment (a bit each). */
    int taken;
    /** Buffers filled by an eager message (a bit each): nothing else may land there. */
    int eagerFilled;
    /** Buffers a message matched by tag took (a bit each): an eager message, a request to send or a head. */
    int matched;
    /** When a partial buffer's latest segment came, or a stall's hold last received or settled (0: none). */
    long partialSinceNanos;
    /** Its buffers' tagged receives, each one of its operations until it ends (cancelled ones too). */
    final TaggedReceives tagged;
    /** Hears of the tagged receives. */
    public final RmaOp.Owner taggedOwner;
    /**
     * Buffers the sender sends no more into (a bit each): filled, refused, taken by an eager message,
     * or their tagged receive ended. A receive that failed, announced with a buffer not among them,
     * holds its failure until it is ({@link #fail}).
     */
    private int settled;
    /** Whether it failed and holds the failure until the sender sends no more into its buffers. */
    private boolean holding;
    /** Whether something arrived that only an announcement's reader sends: its announcement reached the sender. */
    private boolean reached;
    /** Whether it holds a failure a stall began: timed, as a partial buffer is, from its last arrival. */
    private boolean stallHeld;

    public RecvRequest(RecvComm comm, RequestPool<RecvRequest> home) {
        super(comm, home);
        this.comm = comm;
        this.tagged = new TaggedReceives(this, comm);
        this.taggedOwner = tagged;
    }

    /** Buffer {@code i} takes one tagged message, into the receive {@code op} (posted next). */
    public void taggedPosted(int i, RmaOp op) {
        tagged.posted(i, op);
        awaitOneMore();
    }

    /** Whether buffer {@code i} takes a tagged message (its receive posted, or landed already). */
    public boolean tagged(int i) {
        return tagged.has(i);
    }

    /** One of its tagged receives ended: one operation less. */
    void taggedEnded() {
        operationEnded();
    }

    @Override
    protected long timelineName() {
        return (long) tag[0] << 32 | ordinal[0] & 0xFFFFFFFFL;
    }

    /**
     * Fails it. An announced receive holds its failure while the sender may still send into one of
     * its other buffers: until each has its data, refusal, eager message or stall (or it is
     * abandoned), it stays in the window and takes what arrives, its tagged receives posted
     * (docs/PROTOCOL.md, "A failed receive holds its failure"); else they are cancelled.
     */
    @Override
    public void fail(RdmaException cause) {
        boolean first = failure() == null;
        super.fail(cause);
        if (first && announced && unsettled() != 0) {
            holding = true;
            awaitOneMore();
        } else if (!holding) {
            tagged.cancel();
            comm.failed(this);
        }
    }

    /**
     * The writes into {@code stalledBuffers} (a bit each) did not complete in time: it fails, and
     * holds the failure for its other buffers ({@link #fail}) while they keep receiving, timed as a
     * partial buffer is ({@link #timedOut}).
     */
    void stalled(int stalledBuffers, RdmaException cause) {
        for (int i = 0; i < buffers; i++) {
            if ((stalledBuffers & 1 << i) != 0) {
                settled(i);
            }
        }
        fail(cause);
        stallHeld |= holding;
        partialSinceNanos = holding ? System.nanoTime() : 0;
    }

    /**
     * Nothing arrived within the timeout: its partial buffers stall; or, with none, the hold a stall
     * began ends (the sends into its other buffers stalled too, unseen), and it is abandoned.
     */
    void timedOut(RdmaException cause) {
        int partial = partialBuffers() & unsettled();
        if (partial != 0) {
            stalled(partial, cause);
        } else {
            abandon(failure() != null ? failure() : cause);
        }
    }

    /** Fails it at once (its sender gone, or a stall's hold timed out): its tagged receives cancelled. */
    @Override
    public void abandon(RdmaException cause) {
        super.abandon(cause);
        holding = false;
        tagged.cancel();
        tagged.forget();
        comm.failed(this);
    }

    /** The buffers the sender may still send into. */
    private int unsettled() {
        return (1 << buffers) - 1 & ~settled;
    }

    /**
     * The sender sends no more into buffer {@code i}: its tagged receive, if still posted, is
     * cancelled, and a failure held for it may go.
     */
    void settled(int i) {
        tagged.cancel(i);
        boolean first = (settled & 1 << i) == 0;
        settled |= 1 << i;
        if (unsettled() == 0) {
            endHold();
        } else if (stallHeld && first) {
            partialSinceNanos = System.nanoTime();
        }
    }

    /** A failure held ends: it is reported at the next {@code test}, and its numbers leave the window. */
    private void endHold() {
        stallHeld = false;
        partialSinceNanos = 0; // a buffer still partial settled: nothing more is timed
        if (holding) {
            holding = false;
            operationEnded();
            comm.failed(this);
        }
    }

    /** A segment, tagged message or error for one of its buffers arrived: the sender read its announcement. */
    void reachedSender() {
        reached = true;
    }

    /** Whether it failed and holds its failure for a buffer the sender may still send into. */
    public boolean holdingFailure() {
        return holding;
    }

    /** Whether what arrives for its buffers is dropped: it failed, and holds its failure for none. */
    boolean dropsArrivals() {
        return failure() != null && !holding;
    }

    public void start(int sequence, int count, boolean afterClose) {
        this.seq = sequence;
        this.postedAfterClose = afterClose;
        this.buffers = count;
        this.buffersDone = 0;
        this.partialSinceNanos = 0;
        this.taken = 0;
        this.eagerFilled = 0;
        this.matched = 0;
        this.announced = false;
        this.settled = 0;
        this.holding = false;
        this.reached = false;
        this.stallHeld = false;
        tagged.reset();
        begin(0);
        for (int i = 0; i < count; i++) {
            received[i] = 0;
            mrs[i] = null;
            segmentsExpected[i] = 0;
            segmentsArrived[i] = 0;
        }
    }

    /** A written segment of buffer {@code i}: {@code bytes} long, one of {@code segments}. */
    public void segment(int i, int segments, long bytes) throws RdmaException {
        if ((eagerFilled & (1 << i)) != 0) {
            throw new RdmaException(ErrorCategory.REMOTE, "receive " + seq + " buffer " + i + ": a written segment for a"
                    + " buffer an eager message filled");
        }
        if (segmentsExpected[i] == 0) {
            segmentsExpected[i] = segments;
        }
        if (segmentsExpected[i] != segments || segmentsArrived[i] >= segments) {
            throw new RdmaException(ErrorCategory.REMOTE, "receive " + seq + " buffer " + i + ": inconsistent segments ("
                    + segments + " announced, " + segmentsExpected[i] + " before, " + segmentsArrived[i] + " arrived)");
        }
        landed(i, bytes);
    }

    /**
     * Buffer {@code i} took the head of a send, {@code bytes} bytes copied in already: one of its
     * segments, whose count the writes of the rest carry.
     */
    public void head(int i, long bytes) throws RdmaException {
        if (segmentsExpected[i] != 0 && segmentsArrived[i] >= segmentsExpected[i]) {
            throw new RdmaException(ErrorCategory.REMOTE, "receive " + seq + " buffer " + i + ": a head after all "
                    + segmentsExpected[i] + " announced segments");
        }
        landed(i, bytes);
    }

    /** A segment of {@code bytes} arrived in buffer {@code i}: the buffer is done once it has all. */
    private void landed(int i, long bytes) throws RdmaException {
        taken |= 1 << i;
        received[i] += bytes;
        if (received[i] > capacity[i]) {
            throw new RdmaException(ErrorCategory.REMOTE, "receive " + seq + " buffer " + i + ": the peer reports "
                    + received[i] + " bytes for a " + capacity[i] + "-byte buffer");
        }
        if (++segmentsArrived[i] == segmentsExpected[i]) {
            bufferDone();
            settled(i);
            partialSinceNanos = (partialBuffers() & unsettled()) != 0 || stallHeld ? System.nanoTime() : 0;
        } else {
            partialSinceNanos = System.nanoTime();
        }
    }

    /** Buffer {@code i} took an eager message of {@code bytes} bytes, copied in already. */
    public void eagerFilled(int i, long bytes) {
        // A small send matched by tag before the announcement reached the sender.
        tagged.cancel(i);
        taken |= 1 << i;
        eagerFilled |= 1 << i;
        received[i] = bytes;
        bufferDone();
        settled(i);
    }

    /** The buffers with some of their segments but not all, or a head and not yet its writes (a bit each). */
    int partialBuffers() {
        int partial = 0;
        for (int i = 0; i < buffers; i++) {
            if (segmentsArrived[i] > 0 && segmentsArrived[i] != segmentsExpected[i]) {
                partial |= 1 << i;
            }
        }
        return partial;
    }

    /** Bytes received over all buffers. */
    public long receivedBytes() {
        long total = 0;
        for (int i = 0; i < buffers; i++) {
            total += received[i];
        }
        return total;
    }

    /** Whether every buffer has all it takes (the request may still wait for its operations). */
    boolean buffersFilled() {
        return buffersDone == buffers;
    }

    public void bufferDone() {
        if (++buffersDone == buffers) {
            markDone();
        }
    }

    @Override
    protected void reportSizes(long[] sizes) {
        if (sizes != null) {
            for (int i = 0; i < buffers && i < sizes.length; i++) {
                sizes[i] = received[i];
            }
        }
    }

    /** The announcement's write completed (its operation gives its control buffer back). */
    @Override
    public void opDone(RmaOp op) {
        operationEnded();
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        if (!reached) {
            // As far as this side knows, the sender was not told of its buffers: nothing to hold for.
            announced = false;
            endHold();
        }
        operationFailed(new RdmaException(ErrorCategory.REMOTE, "receive " + seq
                + ": the announcement did not reach the sender: " + cause.getMessage(), cause));
    }
}
