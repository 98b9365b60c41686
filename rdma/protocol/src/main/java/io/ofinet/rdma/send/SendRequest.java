package io.ofinet.rdma.send;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.comm.Timeline;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;

/**
 * An outstanding send: waits for the receiver's announcement, then its stripes' writes. Its
 * states and their transitions are here ({@link State}); the sequencer and the writer decide when a
 * transition happens, and the request's end (done or failed) is {@link Request}'s.
 */
public final class SendRequest extends Request implements RmaOp.Owner {
    /** Where a send stands between its post and its end. */
    public enum State {
        /** In its communicator's queue: it waits for its announcement, or for credits to go out eagerly. */
        QUEUED,
        /** Its request to send or its head went out: it waits, in the queue, for its announcement. */
        RTS_SENT,
        /** Copied whole into an eager message: done once posted. */
        EAGER,
        /** Its writes or its tagged message are posted: it waits for their completions. */
        MOVING
    }

    private final SendComm comm;
    long address;
    long size;
    int tag;
    /** How many sends with its tag the communicator had before it: it fills the receive buffer with the same. */
    int ordinal;
    MrHandle mr;
    private State state = State.QUEUED;
    /** When its writes were posted ({@link State#MOVING}): writes that take longer than peerTimeoutMs fail it. */
    long writesPostedNanos;
    /**
     * While its request to send or head waits ({@link State#RTS_SENT}): that message's number; once
     * moving: the sequence number of the receive it fills, whose buffer {@link #bufferIndex} it is.
     */
    int seq;
    int bufferIndex;
    /** Bytes its head carried (0: no head): the writes carry the rest. */
    long headBytes;
    /** Whether {@link #rtsDueNanos} is set: the send has waited at the head for its announcement. */
    boolean rtsTimed;
    long rtsDueNanos;

    public SendRequest(SendComm comm, RequestPool<SendRequest> home) {
        super(comm, home);
        this.comm = comm;
    }

    public void start(long bufferAddress, long bytes, int bufferTag, int tagOrdinal, MrHandle handle) {
        this.address = bufferAddress;
        this.size = bytes;
        this.tag = bufferTag;
        this.ordinal = tagOrdinal;
        this.mr = handle;
        this.state = State.QUEUED;
        this.writesPostedNanos = 0;
        this.headBytes = 0;
        this.rtsTimed = false;
        begin(0);
    }

    public State state() {
        return state;
    }

    /** Its request to send or its head went out: it waits, in the queue, for its announcement. */
    public boolean rtsSent() {
        return state == State.RTS_SENT;
    }

    /**
     * It went out as eager message {@code sequence}, matched by its tag and ordinal: whole (done
     * now, its payload copied), or as a request to send carrying its first {@code head} bytes
     * (none: a bare request to send).
     */
    public void sentEagerly(int sequence, boolean whole, long head) {
        seq = sequence;
        bufferIndex = 0;
        headBytes = head;
        if (whole) {
            state = State.EAGER;
            awaitOperations(0);
            markDone();
        } else {
            state = State.RTS_SENT;
        }
    }

    /** Its writes (or its tagged message) into buffer {@code index} of receive {@code sequence} are posted now. */
    public void moving(int sequence, int index, long now) {
        if (Timeline.ON) {
            Timeline.record(Timeline.SENT, tag, ordinal);
        }
        state = State.MOVING;
        seq = sequence;
        bufferIndex = index;
        writesPostedNanos = now;
    }

    /**
     * Whether its request to send may go out at {@code now}: once it has waited {@code delayNanos}
     * for its announcement, first of the queued sends with its tag, counted from the first time this
     * is asked.
     */
    public boolean rtsDue(long now, long delayNanos) {
        if (!rtsTimed) {
            rtsTimed = true;
            rtsDueNanos = now + delayNanos;
            return false;
        }
        return now - rtsDueNanos >= 0;
    }

    @Override
    protected long timelineName() {
        return (long) tag << 32 | ordinal & 0xFFFFFFFFL;
    }

    @Override
    public void opDone(RmaOp op) {
        if (Timeline.ON) {
            Timeline.record(Timeline.SEND_LANDED, tag, ordinal);
        }
        operationDone();
        if (succeeded()) {
            comm.moved(size);
        } else {
            tellReceiverOnceEnded();
        }
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        operationFailed(new RdmaException(ErrorCategory.REMOTE, "send of " + size + " bytes (tag " + tag + "): "
                + cause.getMessage(), cause));
        tellReceiverOnceEnded();
    }

    /**
     * A moving send that failed tells its receiver once its last write or message has ended, not
     * before: the receiver may reuse the buffer once told, and the stripes still in flight land first.
     * Once per send: its operations end once (an abandoned send hears of none, and tells in its stall).
     */
    private void tellReceiverOnceEnded() {
        if (state == State.MOVING && pendingOps() == 0 && failure() != null) {
            comm.writeFailed(this);
        }
    }
}
