package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;

/** How a communicator of type {@code C} is closed: by its endpoint, which waits for its peer as it must. */
@FunctionalInterface
public interface Closer<C> {
    void close(C comm) throws RdmaException;
}
