package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.BitSet;

/**
 * Communicator and listen ids below a bound, handed out in rotation: a closed communicator's id
 * comes back only after every other id has been used, so that writes still in flight from its
 * peer are not taken for a new communicator's. Not thread-safe.
 */
final class IdAllocator {
    private final BitSet used = new BitSet();
    private final int limit;
    private final String what;
    private int next;

    IdAllocator(int limit, String what) {
        this.limit = limit;
        this.what = what;
    }

    int allocate() throws RdmaException {
        int id = used.nextClearBit(next);
        if (id >= limit) {
            id = used.nextClearBit(0);
        }
        if (id >= limit) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "all " + limit + " " + what
                    + " of this endpoint are in use; close some first");
        }
        used.set(id);
        next = id + 1 == limit ? 0 : id + 1;
        return id;
    }

    void free(int id) {
        used.clear(id);
    }

    boolean inUse(int id) {
        return id >= 0 && used.get(id);
    }
}
