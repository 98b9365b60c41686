package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import java.util.ArrayDeque;

/**
 * A listening communicator: its handle, and the connections accepted on it, ready to be returned
 * by {@link RdmaEndpoint#accept}. One listen communicator accepts many connections.
 */
public final class ListenComm implements AutoCloseable {
    private final RdmaEndpoint endpoint;
    private final int id;
    private final byte[] handle;
    final ArrayDeque<RecvComm> ready = new ArrayDeque<>();
    final ArrayDeque<RdmaException> failures = new ArrayDeque<>();
    /** Connections mid-handshake on it (their ACCEPT not sent yet). */
    int handshaking;
    boolean closed;

    ListenComm(RdmaEndpoint endpoint, int id, byte[] handle) {
        this.endpoint = endpoint;
        this.id = id;
        this.handle = handle;
    }

    public int id() {
        return id;
    }

    /** The handle a peer connects with (at most 128 bytes). */
    public byte[] handle() {
        return handle.clone();
    }

    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    /** Connections it holds that {@code accept} has not returned: mid-handshake and ready. */
    int pending() {
        return handshaking + ready.size();
    }

    /** Closes it; connections accepted but not yet returned are closed too. Twice is harmless. */
    @Override
    public void close() {
        endpoint.closeListen(this);
    }
}
