package io.ofinet.rdma;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/** An outstanding send: waits for the receiver's announcement, then its stripes' writes. */
public final class SendRequest extends Request implements RmaOp.Owner {
    private final SendComm comm;
    long address;
    long size;
    int tag;
    MrHandle mr;
    /** When its writes were posted (0 before): writes that take longer than peerTimeoutMs fail it. */
    long writesPostedNanos;
    int seq;
    int bufferIndex;
    /** Its request to send or its head went out: it waits, at the head of the queue, for its announcement. */
    boolean rtsSent;
    /** Bytes its head carried (0: no head): the writes carry the rest. */
    long headBytes;
    /** Whether {@link #rtsDueNanos} is set: the send has waited at the head for its announcement. */
    boolean rtsTimed;
    long rtsDueNanos;

    SendRequest(SendComm comm) {
        this.comm = comm;
    }

    void start(long bufferAddress, long bytes, int bufferTag, MrHandle handle) {
        this.address = bufferAddress;
        this.size = bytes;
        this.tag = bufferTag;
        this.mr = handle;
        this.writesPostedNanos = 0;
        this.rtsSent = false;
        this.headBytes = 0;
        this.rtsTimed = false;
        begin(0);
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
    public void opDone(RmaOp op) {
        operationDone();
        if (done) {
            comm.endpoint().pools.counts.sent(size);
            comm.counters.moved(size);
        }
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        operationFailed(new RdmaException(ErrorCategory.REMOTE, "send of " + size + " bytes (tag " + tag + "): "
                + cause.getMessage(), cause));
    }
}
