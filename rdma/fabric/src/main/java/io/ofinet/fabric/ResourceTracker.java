package io.ofinet.fabric;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The open children of a fabric object (a domain's endpoints, an endpoint's bound
 * registrations), so that closing a parent with open children is refused with {@code -FI_EBUSY}
 * instead of reaching a provider that may crash on it. For provider implementations.
 * Thread-safe.
 */
public final class ResourceTracker {
    private final Set<Object> open = new LinkedHashSet<>();

    public synchronized void add(Object child) {
        open.add(child);
    }

    public synchronized void remove(Object child) {
        open.remove(child);
    }

    public synchronized int size() {
        return open.size();
    }

    public synchronized List<Object> snapshot() {
        return new ArrayList<>(open);
    }

    /**
     * Throws {@code FI_EBUSY} naming the call and what is still open, when anything is.
     *
     * @param call the refused call, e.g. {@code fi_close(endpoint)}
     * @param what what the children are, e.g. {@code "registrations bound to it"}
     */
    public synchronized void requireEmpty(String call, String what) throws FabricException {
        if (!open.isEmpty()) {
            throw new FabricException(call, FiErrno.FI_EBUSY, open.size() + " " + what
                    + " still open; close them first");
        }
    }
}
