package io.ofinet.rdma.recv;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.comm.Timeline;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.Limits;
import java.util.Arrays;

/**
 * The tagged receives of one receive's buffers (docs/PROTOCOL.md, "Tagged messages"): which of its
 * buffers take one tagged message, and the provider's receive posted for each until it ends. Each
 * is one of the request's operations; its end, completed, failed or cancelled, goes to the request.
 * Touched only with the endpoint held.
 */
final class TaggedReceives implements RmaOp.Owner {
    private final RecvRequest request;
    private final RecvComm comm;
    private final RmaOp[] posted = new RmaOp[Limits.MAX_RECVS];
    /** Buffers announced to take one tagged message (a bit each), their receives posted or ended. */
    private int buffers;

    TaggedReceives(RecvRequest request, RecvComm comm) {
        this.request = request;
        this.comm = comm;
    }

    /** For a new use of the request: no buffer takes a tagged message. */
    void reset() {
        buffers = 0;
        forget();
    }

    /** Forgets the receives still posted, whose ends are no longer waited for (the request was abandoned). */
    void forget() {
        Arrays.fill(posted, null);
    }

    /** Buffer {@code i} takes one tagged message, into the receive {@code op}. */
    void posted(int i, RmaOp op) {
        buffers |= 1 << i;
        posted[i] = op;
    }

    /** The buffers that take a tagged message (a bit each). */
    int buffers() {
        return buffers;
    }

    /** Whether buffer {@code i} takes a tagged message (its receive posted, or ended already). */
    boolean has(int i) {
        return (buffers & (1 << i)) != 0;
    }

    /** Whether a receive is still posted. */
    boolean pending() {
        for (RmaOp op : posted) {
            if (op != null) {
                return true;
            }
        }
        return false;
    }

    /** Cancels the receives still posted; each still ends, and its end comes here. */
    void cancel() {
        for (int i = 0; i < posted.length; i++) {
            cancel(i);
        }
    }

    /** Cancels the receive of buffer {@code i}, if it is still posted. */
    void cancel(int i) {
        if (posted[i] != null) {
            posted[i].cancel();
        }
    }

    @Override
    public void opDone(RmaOp op) {
        ended(op, null);
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        ended(op, cause);
    }

    /**
     * A receive completed or failed: one operation of the request less, and its buffer takes no more.
     * A message that landed is an arrival, counted for the sender's close, whether or not the request
     * failed already; a failure of its own fails the request, unless it was cancelled.
     */
    private void ended(RmaOp op, RdmaException cause) {
        int i = op.index;
        posted[i] = null;
        request.taggedEnded();
        if (cause == null) {
            arrived(i, op.received, op.rail);
        } else if (!op.cancelled()) {
            request.fail(new RdmaException(ErrorCategory.REMOTE, "irecv: the message into buffer " + i + " failed: "
                    + cause.getMessage(), cause));
        }
        request.settled(i);
    }

    /**
     * Buffer {@code i}'s tagged message of {@code bytes} bytes arrived on data rail {@code rail}:
     * the buffer's one segment, if it came from the sender's address there (where the provider
     * names sources right; the tag carried the communicator's token).
     */
    private void arrived(int i, long bytes, int rail) {
        if (Timeline.ON) {
            Timeline.record(Timeline.RECV_LANDED, request.tag[i], request.ordinal[i]);
        }
        CommHost host = comm.host();
        comm.liveness().heard(host.stepNanos());
        long source = host.arrivalSource();
        if (source != ProgressEngine.SOURCE_UNTOLD && source != comm.connection().dataPeer(rail)) {
            comm.forgedArrival();
            request.fail(new RdmaException(ErrorCategory.REMOTE, "irecv: buffer " + i + " took a message from an"
                    + " address other than the sender's on data rail " + rail));
            return;
        }
        comm.senderClose().counted();
        request.reachedSender();
        try {
            request.segment(i, 1, bytes);
            comm.progressed(request);
        } catch (RdmaException e) {
            request.fail(e);
        } finally {
            comm.senderClose().afterArrival();
        }
    }

    @Override
    public int generation() {
        return request.generation();
    }
}
