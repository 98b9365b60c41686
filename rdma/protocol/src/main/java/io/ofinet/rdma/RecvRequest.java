package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Limits;

/**
 * An outstanding grouped receive: up to 8 buffers with tags, under as many consecutive message
 * sequence numbers from {@link #seq}. It is done when its control message (if it needed one) has
 * been written and every buffer has its eager message or all its segments.
 */
public final class RecvRequest extends Request implements RmaOp.Owner {
    private final RecvComm comm;
    int seq;
    int buffers;
    final long[] address = new long[Limits.MAX_RECVS];
    final long[] capacity = new long[Limits.MAX_RECVS];
    final int[] tag = new int[Limits.MAX_RECVS];
    final long[] received = new long[Limits.MAX_RECVS];
    final int[] segmentsExpected = new int[Limits.MAX_RECVS];
    final int[] segmentsArrived = new int[Limits.MAX_RECVS];
    int buffersDone;
    /** Buffers something was assigned to: an eager message, an intent, or a written segment (a bit each). */
    int taken;
    /** Buffers filled by an eager message (a bit each): nothing else may land there. */
    int eagerFilled;
    /** Buffers the messages matched by tag took, in sequence order (a bit each), and how many did. */
    int byTagTaken;
    int byTagNext;
    /** When the latest segment of a still partial buffer arrived (0 when none is partial). */
    long partialSinceNanos;
    ControlRailBuffer controlBuffer;

    RecvRequest(RecvComm comm) {
        this.comm = comm;
    }

    void start(int sequence, int count) {
        this.seq = sequence;
        this.buffers = count;
        this.buffersDone = 0;
        this.partialSinceNanos = 0;
        this.taken = 0;
        this.eagerFilled = 0;
        this.byTagTaken = 0;
        this.byTagNext = 0;
        begin(0);
        for (int i = 0; i < count; i++) {
            received[i] = 0;
            segmentsExpected[i] = 0;
            segmentsArrived[i] = 0;
        }
    }

    /** A written segment of buffer {@code i}: {@code bytes} long, one of {@code segments}. */
    void segment(int i, int segments, long bytes) throws RdmaException {
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
    void head(int i, long bytes) throws RdmaException {
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
            partialSinceNanos = partialBuffers() ? System.nanoTime() : 0;
        } else {
            partialSinceNanos = System.nanoTime();
        }
    }

    /** Buffer {@code i} took an eager message of {@code bytes} bytes, copied in already. */
    void eagerFilled(int i, long bytes) {
        taken |= 1 << i;
        eagerFilled |= 1 << i;
        received[i] = bytes;
        bufferDone();
    }

    /** Whether a buffer has some of its segments but not all (or a head, and the writes not yet). */
    boolean partialBuffers() {
        for (int i = 0; i < buffers; i++) {
            if (segmentsArrived[i] > 0 && segmentsArrived[i] != segmentsExpected[i]) {
                return true;
            }
        }
        return false;
    }

    /** Bytes received over all buffers. */
    long receivedBytes() {
        long total = 0;
        for (int i = 0; i < buffers; i++) {
            total += received[i];
        }
        return total;
    }

    void bufferDone() {
        if (++buffersDone == buffers) {
            done = true;
        }
    }

    @Override
    RdmaEndpoint endpoint() {
        return comm.endpoint();
    }

    @Override
    void release() {
        comm.release(this);
    }

    @Override
    void reportSizes(long[] sizes) {
        if (sizes != null) {
            for (int i = 0; i < buffers && i < sizes.length; i++) {
                sizes[i] = received[i];
            }
        }
    }

    /** The control message's write completed. */
    @Override
    public void opDone(RmaOp op) {
        pendingOps--;
        releaseControlBuffer();
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        releaseControlBuffer();
        operationFailed(new RdmaException(ErrorCategory.REMOTE, "receive " + seq
                + ": the control message did not reach the sender: " + cause.getMessage(), cause));
    }

    private void releaseControlBuffer() {
        comm.endpoint().pools.release(controlBuffer);
        controlBuffer = null;
    }
}
