package io.ofinet.rdma.progress;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.ErrorCategory;
import io.ofinet.rdma.RdmaException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives one protocol endpoint: reads its completion queues (one per rail) in batches of at most
 * the layout's CQ read count, dispatches each completion by its context to the {@link Operation}
 * it belongs to, and hands the completions of remote writes with immediate data (context 0, or
 * the flag FI_REMOTE_WRITE) to the {@link RemoteHandler}. Posts refused with -FI_EAGAIN wait in a pending queue that is retried, in
 * order, before anything new is posted. Every loop has a bound. ofinet calls {@link #progress} from
 * every entry point, whatever progress the provider claims.
 */
public final class ProgressEngine {

    /** Completions of remote writes with immediate data (context 0). */
    @FunctionalInterface
    public interface RemoteHandler {
        void remoteData(int rail, long flags, long len, long data) throws RdmaException;
    }

    private final CompletionQueue[] queues;
    private final int readCount;
    private final RemoteHandler remote;
    private final CompletionBatch batch;
    private final CompletionError error = new CompletionError();
    private final List<Operation> operations = new ArrayList<>();
    private final ArrayDeque<Operation> pending = new ArrayDeque<>();

    /**
     * @param queues the completion queue of each rail, indexed as the rails are
     * @param readCount completions read per queue per step (the layout's cqReadCount)
     */
    public ProgressEngine(List<CompletionQueue> queues, int readCount, RemoteHandler remote) {
        this.queues = queues.toArray(new CompletionQueue[0]);
        this.readCount = readCount;
        this.remote = remote;
        this.batch = new CompletionBatch(readCount);
    }

    /** Gives an operation its id; done once, when the operation is made. */
    public void register(Operation op) {
        op.assign(operations.size());
        operations.add(op);
    }

    /** Operations waiting to be posted again. */
    public int pending() {
        return pending.size();
    }

    /**
     * Posts an operation, or queues it behind earlier refused ones: a new post never overtakes a
     * pending one. A failure to post fails the operation.
     */
    public void submit(Operation op) {
        if (!pending.isEmpty()) {
            pending.add(op);
            return;
        }
        if (tryPost(op) == Endpoint.AGAIN) {
            pending.add(op);
        }
    }

    private int tryPost(Operation op) {
        try {
            return op.post();
        } catch (FabricException e) {
            op.failed(new RdmaException(ErrorCategory.SYSTEM, op.describe() + ": " + e.getMessage(), e));
            return Endpoint.POSTED;
        }
    }

    /**
     * One bounded step: retries pending posts in order until one is refused again, then reads
     * each queue once.
     *
     * @return completions handled
     */
    public int progress() throws RdmaException {
        for (int n = pending.size(); n > 0; n--) {
            Operation op = pending.peek();
            if (tryPost(op) == Endpoint.AGAIN) {
                break;
            }
            pending.poll();
        }
        int handled = 0;
        for (int rail = 0; rail < queues.length; rail++) {
            handled += read(rail);
        }
        return handled;
    }

    private int read(int rail) throws RdmaException {
        int n;
        try {
            n = queues[rail].read(batch, readCount);
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, "reading the completion queue of rail " + rail + ": "
                    + e.getMessage(), e);
        }
        if (n == CompletionQueue.ERROR_AVAILABLE) {
            readError(rail);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            long context = batch.context(i);
            // A remote write's completion at its target belongs to no operation of ours, whatever
            // its context says: libfabric 1.17's shm reports a stale value there (the command's
            // msg_id, which its inline and inject paths never set), which would complete a random
            // operation. The flags say what it is.
            if (context == 0 || (batch.flags(i) & Fi.REMOTE_WRITE) != 0) {
                remote.remoteData(rail, batch.flags(i), batch.len(i), batch.data(i));
            } else {
                operation(context, rail).completed(rail, batch.flags(i), batch.len(i), batch.data(i));
            }
        }
        return n;
    }

    private void readError(int rail) throws RdmaException {
        boolean read;
        try {
            read = queues[rail].readError(error);
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, "reading an error completion of rail " + rail + ": "
                    + e.getMessage(), e);
        }
        if (!read) {
            return;
        }
        if (error.context() == 0) {
            throw new RdmaException(ErrorCategory.REMOTE, "a remote write on rail " + rail + " failed: "
                    + FiErrno.name(error.errno()) + " (" + error.providerMessage() + ")");
        }
        Operation op = operation(error.context(), rail);
        op.failed(new RdmaException(error.errno() == FiErrno.FI_ETRUNC ? ErrorCategory.REMOTE : ErrorCategory.SYSTEM,
                op.describe() + " failed: " + FiErrno.name(error.errno()) + " (" + error.providerMessage() + ")"));
    }

    private Operation operation(long context, int rail) throws RdmaException {
        if (context < 1 || context > operations.size()) {
            throw new RdmaException(ErrorCategory.INTERNAL, "completion on rail " + rail + " with unknown context "
                    + context);
        }
        return operations.get((int) (context - 1));
    }
}
