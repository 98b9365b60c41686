package io.ofinet.fabric.ofi;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.ResourceTracker;
import java.lang.ref.Reference;

/** A libfabric completion queue of FI_CQ_FORMAT_DATA entries, read into preallocated memory. */
final class OfiCompletionQueue implements CompletionQueue {
    /** Entries read per call at most; the caller's batch bounds it further. */
    static final int MAX_BATCH = 64;

    private final OfiDomain domain;
    private final long cq;
    private final DataPath path = DataPaths.current();
    private final DataPath.CqCalls calls;
    private final long entries;
    private final long errorEntry;
    /** Where fi_cq_readfrom puts each entry's source; 0 when the domain does not report sources. */
    private final long sources;
    private final ResourceTracker users = new ResourceTracker();
    /**
     * Checked by every read: a queue used after its close would let the provider write into freed
     * memory. A plain field: the queue is read by one thread at a time, and closed by one of them.
     */
    private boolean closed;

    OfiCompletionQueue(OfiDomain domain, long cq) {
        this.domain = domain;
        this.cq = cq;
        this.calls = path.cq(cq, DataPaths.waitsOnPeers(domain.provider()));
        this.entries = NativeMemory.allocate((long) MAX_BATCH * NativeOffsets.CQE_SIZE);
        this.errorEntry = NativeMemory.allocate(NativeOffsets.CQERR_SIZE);
        this.sources = (domain.info().caps() & io.ofinet.fabric.Fi.SOURCE) != 0
                ? NativeMemory.allocate((long) MAX_BATCH * Long.BYTES) : 0;
    }

    /** Endpoints bound to it; it cannot close before them. */
    ResourceTracker users() {
        return users;
    }

    OfiDomain domain() {
        return domain;
    }

    long fid() {
        return cq;
    }

    @Override
    public int read(CompletionBatch out, int max) throws FabricException {
        int n = Math.min(Math.min(max, out.capacity()), MAX_BATCH);
        if (closed || n <= 0) {
            return refused(out); // cold: out of the progress step's compiled code
        }
        long rc = sources == 0 ? calls.read(entries, n) : calls.readfrom(entries, n, sources);
        if (rc > 0) {
            for (int i = 0; i < rc; i++) {
                long e = entries + (long) i * NativeOffsets.CQE_SIZE;
                out.set(i, path.getLong(e + NativeOffsets.CQE_OP_CONTEXT), path.getLong(e + NativeOffsets.CQE_FLAGS),
                        path.getLong(e + NativeOffsets.CQE_LEN), path.getLong(e + NativeOffsets.CQE_BUF),
                        path.getLong(e + NativeOffsets.CQE_DATA));
                if (sources != 0) {
                    out.setSource(i, path.getLong(sources + (long) i * Long.BYTES));
                }
            }
            out.setCount((int) rc);
            return (int) rc;
        }
        out.setCount(0);
        if (rc == -FiErrno.FI_EAGAIN) {
            return 0;
        }
        return notRead(rc);
    }

    /** A read of a closed queue (refused), or of no entries (none read: a provider may answer 0 for it). */
    private int refused(CompletionBatch out) {
        requireOpen();
        out.setCount(0);
        return 0;
    }

    /** What a read that returned {@code rc}, neither entries nor -FI_EAGAIN, means. */
    private int notRead(long rc) throws FabricException {
        if (rc == -FiErrno.FI_EAVAIL) {
            return ERROR_AVAILABLE;
        }
        throw Ops.error(sources == 0 ? "fi_cq_read" : "fi_cq_readfrom", domain.provider(), rc);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the completion queue is closed");
        }
    }

    /** Whether it was closed: an endpoint is not bound to it then. */
    boolean isClosed() {
        return closed;
    }

    @Override
    public boolean readError(CompletionError out) throws FabricException {
        requireOpen();
        NativeMemory.fill(errorEntry, NativeOffsets.CQERR_SIZE, (byte) 0);
        long rc = calls.readerr(errorEntry, 0);
        if (rc == -FiErrno.FI_EAGAIN) {
            return false;
        }
        if (rc < 0) {
            throw Ops.error("fi_cq_readerr", domain.provider(), rc);
        }
        int providerErrno = path.getInt(errorEntry + NativeOffsets.CQERR_PROV_ERRNO);
        out.set(path.getLong(errorEntry + NativeOffsets.CQERR_OP_CONTEXT), path.getLong(errorEntry + NativeOffsets.CQERR_FLAGS),
                path.getLong(errorEntry + NativeOffsets.CQERR_LEN), path.getLong(errorEntry + NativeOffsets.CQERR_DATA),
                path.getInt(errorEntry + NativeOffsets.CQERR_ERR), providerErrno, strerror(providerErrno));
        return true;
    }

    /** fi_cq_strerror: the provider's words for its own error number. */
    private String strerror(int providerErrno) {
        try {
            Function strerror = Ops.fn(Ops.getLong(cq + NativeOffsets.CQ_OPS), NativeOffsets.OPS_CQ_STRERROR,
                    "fi_cq_strerror", domain.provider());
            Memory buf = Ops.scratch(256);
            try {
                Pointer text = strerror.invokePointer(new Object[] {cq, providerErrno,
                    path.getLong(errorEntry + NativeOffsets.CQERR_ERR_DATA), Pointer.nativeValue(buf), 256L});
                return text == null ? "" : text.getString(0); // the text may be in buf
            } finally {
                Reference.reachabilityFence(buf);
            }
        } catch (FabricException e) {
            return "";
        }
    }

    @Override
    public synchronized void close() throws FabricException {
        if (closed) {
            return;
        }
        users.requireEmpty("fi_close(cq)", "endpoints bound to it");
        Ops.close(cq, "cq", domain.provider());
        closed = true;
        NativeMemory.free(entries);
        NativeMemory.free(errorEntry);
        if (sources != 0) {
            NativeMemory.free(sources);
        }
        domain.closed(this);
    }
}
