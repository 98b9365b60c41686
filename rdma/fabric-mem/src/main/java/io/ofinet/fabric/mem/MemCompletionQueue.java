package io.ofinet.fabric.mem;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.ResourceTracker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A completion queue. Reading it is what drives the endpoints bound to it: their inbound
 * operations are delivered, and their completions appear, only then.
 */
final class MemCompletionQueue implements CompletionQueue {
    /**
     * One completion; {@code initiator} is the endpoint whose post it completes, if any;
     * {@code source} the sender's handle in the receiving endpoint's address vector.
     */
    record Entry(long context, long flags, long len, long buf, long data, int errno, String message,
            MemEndpoint initiator, long source) {
    }

    final MemDomain domain;
    final ResourceTracker users = new ResourceTracker();
    final List<MemEndpoint> endpoints = new ArrayList<>();
    private final int size;
    private final List<Entry> ready = new ArrayList<>();
    private final Deque<Entry> errors = new ArrayDeque<>();
    private boolean closed;

    MemCompletionQueue(MemDomain domain, int size) {
        this.domain = domain;
        this.size = size;
    }

    boolean hasRoom() {
        return ready.size() + errors.size() < size;
    }

    void add(Entry entry) {
        ready.add(entry);
    }

    @Override
    public int read(CompletionBatch out, int max) throws FabricException {
        synchronized (domain.network) {
            requireOpen();
            domain.network.record("fi_cq_read");
            for (MemEndpoint ep : endpoints) {
                if (ep.failReads.take(null)) {
                    throw new FabricException("fi_cq_read (provider mem)", ep.failReads.errno(), "injected failure");
                }
            }
            for (MemEndpoint ep : endpoints) {
                ep.progress();
            }
            int n = Math.min(max, out.capacity());
            int count = 0;
            while (count < n && errors.isEmpty() && !ready.isEmpty()) {
                Entry e = ready.remove(domain.network.pick(ready.size()));
                if (e.errno() != 0) {
                    errors.add(e);
                    break;
                }
                consumed(e);
                out.set(count, e.context(), e.flags(), e.len(), e.buf(), e.data());
                out.setSource(count++, e.source());
            }
            out.setCount(count);
            return count == 0 && !errors.isEmpty() ? ERROR_AVAILABLE : count;
        }
    }

    @Override
    public boolean readError(CompletionError out) {
        synchronized (domain.network) {
            requireOpen();
            Entry e = errors.poll();
            if (e == null) {
                for (int i = 0; i < ready.size() && e == null; i++) {
                    if (ready.get(i).errno() != 0) {
                        e = ready.remove(i);
                    }
                }
            }
            if (e == null) {
                return false;
            }
            consumed(e);
            out.set(e.context(), e.flags(), e.len(), e.data(), e.errno(), e.errno(), e.message());
            return true;
        }
    }

    private static void consumed(Entry e) {
        if (e.initiator() != null) {
            e.initiator().outstanding--;
        }
    }

    @Override
    public void close() throws FabricException {
        synchronized (domain.network) {
            if (!closed) {
                users.requireEmpty("fi_close(cq)", "endpoints bound to it");
                closed = true;
                domain.closed(this);
            }
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the completion queue is closed");
        }
    }

    boolean isClosed() {
        synchronized (domain.network) {
            return closed;
        }
    }
}
