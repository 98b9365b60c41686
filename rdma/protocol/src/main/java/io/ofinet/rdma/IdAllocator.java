package io.ofinet.rdma;

import java.util.BitSet;

/** Lowest-free ids below a bound: communicator and listen ids. Not thread-safe. */
final class IdAllocator {
    private final BitSet used = new BitSet();
    private final int limit;
    private final String what;

    IdAllocator(int limit, String what) {
        this.limit = limit;
        this.what = what;
    }

    int allocate() throws RdmaException {
        int id = used.nextClearBit(0);
        if (id >= limit) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "all " + limit + " " + what
                    + " of this endpoint are in use; close some first");
        }
        used.set(id);
        return id;
    }

    void free(int id) {
        used.clear(id);
    }

    boolean inUse(int id) {
        return id >= 0 && used.get(id);
    }
}
