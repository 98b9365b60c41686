package io.ofinet.fabric.mem;

import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ofi.NativeMemory;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What arrives at one endpoint: the operations on their way to it, carried out when its completion
 * queue is read — messages into its posted receives (or held as unexpected), writes into and reads
 * from its registrations — and their completions at both ends. Guarded by the network's monitor,
 * as the endpoint it belongs to.
 */
final class MemDelivery {
    private final MemEndpoint target;
    private final MemCompletionQueue cq;
    private final MemAddressVector av;
    private final MemReceives receives;
    private final Deque<MemOp> inbound = new ArrayDeque<>();

    MemDelivery(MemEndpoint target, MemCompletionQueue cq, MemAddressVector av, MemReceives receives) {
        this.target = target;
        this.cq = cq;
        this.av = av;
        this.receives = receives;
    }

    /** An operation posted to this endpoint: carried out at the next read of its completion queue. */
    void add(MemOp op) {
        inbound.add(op);
    }

    /** Carries out what has arrived, then matches held messages with receives posted since. */
    void deliver() {
        while (!inbound.isEmpty()) {
            MemOp op = inbound.poll();
            switch (op.kind()) {
                case SEND:
                    deliverMessage(op);
                    break;
                case WRITE:
                    deliverWrite(op);
                    break;
                default:
                    deliverRead(op);
                    break;
            }
        }
        for (MemReceives.Match m = receives.next(); m != null; m = receives.next()) {
            MemReceives.Unexpected u = m.message();
            long n = Math.min(u.payload().length, m.recv().len());
            NativeMemory.write(m.recv().buf(), u.payload(), 0, (int) n);
            receive(m.recv(), u.payload().length, u.data(), u.hasData(), u.sender());
        }
    }

    /** Fails at its initiator everything still on its way, with {@code errno}. */
    void failAll(int errno) {
        for (MemOp op : inbound) {
            MemEndpoint.complete(op.initiator(), op.context(), op.flags(), 0, errno, "the peer vanished");
        }
        inbound.clear();
    }

    private void deliverMessage(MemOp op) {
        MemReceives.Recv r = receives.take(op.tagged(), op.key());
        if (r != null) {
            NativeMemory.copy(r.buf(), op.buf(), Math.min(op.len(), r.len()));
            receive(r, op.len(), op.data(), op.hasData(), op.initiator().address());
        } else {
            byte[] payload = new byte[(int) op.len()];
            NativeMemory.read(op.buf(), payload, 0, payload.length);
            receives.hold(new MemReceives.Unexpected(payload, op.data(), op.hasData(), op.initiator().address(),
                    op.tagged(), op.key()));
        }
        op.delivered();
    }

    private void receive(MemReceives.Recv r, long sentLen, long data, boolean hasData, long sender) {
        long flags = Fi.RECV | (r.tagged() ? Fi.TAGGED : Fi.MSG) | (hasData ? Fi.REMOTE_CQ_DATA : 0);
        if (sentLen > r.len()) {
            cq.add(new MemCompletionQueue.Entry(r.context(), flags, r.len(), r.buf(), data, FiErrno.FI_ETRUNC,
                    "message of " + sentLen + " bytes truncated to the " + r.len() + "-byte buffer", null,
                    av.handleOf(sender)));
        } else {
            cq.add(new MemCompletionQueue.Entry(r.context(), flags, sentLen, r.buf(), data, 0, "", null,
                    av.handleOf(sender)));
        }
    }

    /**
     * Whether this endpoint takes a write or read, with the address in its memory that the operation
     * names written into {@code address[0]}; a refused one fails at its initiator with FI_EACCES,
     * saying why.
     */
    private boolean accepted(MemOp op, long access, long[] address) {
        MemMemoryRegion mr = target.domain.byKey(op.key());
        String refusal;
        if (mr == null) {
            refusal = "no registration with key " + op.key() + " at the target";
        } else if (!mr.usableOn(target)) {
            refusal = "key " + op.key() + " is not bound and enabled on the target endpoint (FI_MR_ENDPOINT)";
        } else if ((mr.access & access) == 0) {
            refusal = "the target registration lacks "
                    + (access == Fi.REMOTE_WRITE ? "FI_REMOTE_WRITE" : "FI_REMOTE_READ");
        } else {
            boolean virtual = target.info().virtualAddressing();
            long start = virtual ? op.remoteAddr() : mr.address() + op.remoteAddr();
            if (!virtual && (op.remoteAddr() < 0 || op.remoteAddr() > mr.length())) {
                refusal = "offset " + op.remoteAddr() + " outside the " + mr.length() + "-byte target registration";
            } else if (!mr.covers(start, op.len())) {
                refusal = op.len() + " bytes at " + op.remoteAddr() + " exceed the target registration";
            } else {
                refusal = null;
                address[0] = start;
            }
        }
        if (refusal != null) {
            MemEndpoint.complete(op.initiator(), op.context(), op.flags(), 0, FiErrno.FI_EACCES, refusal);
            return false;
        }
        return true;
    }

    private void deliverWrite(MemOp op) {
        long[] address = new long[1];
        if (!accepted(op, Fi.REMOTE_WRITE, address)) {
            return;
        }
        NativeMemory.copy(address[0], op.buf(), op.len());
        if (op.hasData()) {
            cq.add(new MemCompletionQueue.Entry(0, Fi.RMA | Fi.REMOTE_WRITE | Fi.REMOTE_CQ_DATA, op.len(), 0,
                    op.data(), 0, "", null, av.handleOf(op.initiator().address())));
        }
        op.delivered();
    }

    private void deliverRead(MemOp op) {
        long[] address = new long[1];
        if (!accepted(op, Fi.REMOTE_READ, address)) {
            return;
        }
        NativeMemory.copy(op.buf(), address[0], op.len());
        op.delivered();
    }
}
