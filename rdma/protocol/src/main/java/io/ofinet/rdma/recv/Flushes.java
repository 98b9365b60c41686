package io.ofinet.rdma.recv;

import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.comm.RequestPool;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.wire.Limits;

/**
 * A receive communicator's flushes: an RDMA read of a few bytes of the first non-empty buffer on
 * every data rail, through the endpoint's own address, into the endpoint's flush buffer. Touched
 * only with the endpoint held.
 */
final class Flushes {
    /** Bytes each flush read fetches (the flush buffer has room for them). */
    private static final long READ_BYTES = 8;
    private final CommParts parts;
    private final RequestPool<FlushRequest> requests;
    private final RmaOp[] ops = new RmaOp[Limits.MAX_DATA_RAILS];

    Flushes(RecvComm comm, CommParts parts, int bound) {
        this.parts = parts;
        this.requests = new RequestPool<>(bound, pool -> new FlushRequest(comm, pool));
    }

    /**
     * Posts a flush of the first non-empty of {@code count} received buffers; done at once when the
     * layout disables the flush or every buffer is empty.
     *
     * @return the request, or null when it cannot be posted now (retry later)
     */
    FlushRequest post(int count, long[] addresses, long[] sizes, MrHandle[] mrs) {
        int target = -1;
        for (int i = 0; i < count && target < 0; i++) {
            if (sizes[i] > 0 && mrs[i] != null) {
                target = i;
            }
        }
        FlushRequest request = requests.take();
        if (request == null) {
            return null;
        }
        if (target < 0 || parts.params().flushDisabled()) {
            request.start(0);
            return request;
        }
        int rails = parts.dataRails();
        if (!parts.ops().acquire(ops, rails)) {
            requests.putBack(request);
            return null;
        }
        request.start(rails);
        MrHandle mr = mrs[target];
        MrHandle flush = parts.flushBuffer();
        long length = Math.min(sizes[target], READ_BYTES);
        for (int r = 0; r < rails; r++) {
            RmaOp op = ops[r].set(RmaOp.Kind.READ, parts.rails().dataEndpoint(r), r, RmaOp.READ_ON_DATA_RAIL[r], request);
            op.buf = flush.address();
            op.len = length;
            op.desc = flush.descriptor(RailKind.DATA, r);
            op.peer = parts.rails().self(r);
            op.remote = mr.remoteAddress(RailKind.DATA, r, addresses[target] - mr.address());
            op.key = mr.key(RailKind.DATA, r);
            op.submit(parts.peers().local(r));
        }
        return request;
    }

    void trimIfIdle(long now) {
        requests.trimIfIdle(now);
    }
}
