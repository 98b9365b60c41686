package io.ofinet.rdma.recv;

import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;

/**
 * A flush: an RDMA read of a few bytes of a received buffer, on every data rail, into the
 * endpoint's flush buffer through the endpoint's own address. It completes when the reads do —
 * the mechanism that makes device-memory writes visible on GPU systems.
 */
public final class FlushRequest extends Request implements RmaOp.Owner {
    public FlushRequest(RecvComm comm, RequestPool<FlushRequest> home) {
        super(comm, home);
    }

    public void start(int reads) {
        begin(reads);
        if (reads == 0) {
            markDone();
        }
    }

    @Override
    public void opDone(RmaOp op) {
        operationDone();
    }

    @Override
    public void opFailed(RmaOp op, RdmaException cause) {
        operationFailed(new RdmaException(ErrorCategory.SYSTEM, "flush: " + cause.getMessage(), cause));
    }
}
