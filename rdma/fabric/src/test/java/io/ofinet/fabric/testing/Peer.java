package io.ofinet.fabric.testing;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * One endpoint with its completion queue and address vector, and the completions it has seen,
 * for tests. Completions are kept as records so that tests can look for them in any order.
 */
public final class Peer implements AutoCloseable {
    /**
     * A completion or an error completion seen by this peer; {@code source} as the queue reported
     * it ({@link Fi#ADDR_NOTAVAIL} unless the domain has FI_SOURCE).
     */
    public record Completion(long context, long flags, long len, long data, int errno, String message, long source) {
        public boolean failed() {
            return errno != 0;
        }
    }

    public final Domain domain;
    public final CompletionQueue cq;
    public final AddressVector av;
    public final Endpoint endpoint;
    private final CompletionBatch batch = new CompletionBatch(16);
    private final CompletionError error = new CompletionError();
    private final Deque<Completion> seen = new ArrayDeque<>();

    public Peer(Domain domain) throws FabricException {
        this.domain = domain;
        this.cq = domain.openCompletionQueue(1024);
        this.av = domain.openAddressVector(16);
        this.endpoint = domain.openEndpoint(cq, av);
        endpoint.enable();
    }

    /** Reads what the completion queue has now (one bounded batch, plus one error entry). */
    public void progress() throws FabricException {
        int n = cq.read(batch, batch.capacity());
        for (int i = 0; i < n; i++) {
            seen.add(new Completion(batch.context(i), batch.flags(i), batch.len(i), batch.data(i), 0, "",
                    batch.source(i)));
        }
        if (n == CompletionQueue.ERROR_AVAILABLE && cq.readError(error)) {
            seen.add(new Completion(error.context(), error.flags(), error.len(), error.data(), error.errno(),
                    error.providerMessage(), Fi.ADDR_NOTAVAIL));
        }
    }

    /** Takes the first completion matching the context, or null. */
    public Completion take(long context) {
        for (Completion c : seen) {
            if (c.context() == context) {
                seen.remove(c);
                return c;
            }
        }
        return null;
    }

    /** Takes every completion seen so far. */
    public List<Completion> takeAll() {
        List<Completion> all = new ArrayList<>(seen);
        seen.clear();
        return all;
    }

    @Override
    public void close() throws FabricException {
        endpoint.close();
        av.close();
        cq.close();
    }
}
