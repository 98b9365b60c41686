package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Connection;
import java.util.function.Predicate;

/**
 * What a send and a receive communicator share: their id and token, their requests' pool, their
 * peer once known and whether it lives, their counts, and whether they are closed. One thread at a
 * time drives a communicator; its state belongs to the endpoint and is touched only with the
 * endpoint held (see the package {@code io.ofinet.rdma}).
 *
 * @param <R> its kind of request
 */
public abstract class Communicator<R extends Request> implements AutoCloseable, PeerLiveness.Peered {
    /** The parts of its endpoint it uses. */
    protected final CommParts parts;
    protected final CommHost host;
    private final int id;
    private final int token;
    /** What {@link #statistics()} reports. */
    protected final CommCounters counters = new CommCounters();
    /** Its requests: made as first needed, up to the bound the plugin interface guarantees it. */
    protected final RequestPool<R> requests;
    /** The peer, once known (the receiver's once its ACCEPT arrived, the sender's from the start). */
    protected Connection connection;
    /** Whether the peer lives; watched from when the connection is made. */
    protected PeerLiveness liveness;
    private boolean closed;

    /**
     * @param maxRequests requests outstanding at most
     */
    // The pool calls newRequest only when first asked for a request, after construction.
    @SuppressWarnings("this-escape")
    protected Communicator(CommParts parts, int id, int token, int maxRequests) {
        this.parts = parts;
        this.host = parts.host();
        this.id = id;
        this.token = token;
        this.requests = new RequestPool<>(maxRequests, this::newRequest);
    }

    /** Makes one of its requests, given the pool it returns to (when its pool first needs it). */
    protected abstract R newRequest(RequestPool<R> pool);

    /** This side's communicator id, in the immediate data the peer sends. */
    public int id() {
        return id;
    }

    @Override
    public int token() {
        return token;
    }

    @Override
    public void forgedArrival() {
        counters.forged();
    }

    /** An arrival for it was dropped as malformed. */
    public void malformedArrival() {
        counters.malformed();
    }

    /** What it moved, and what was dropped in its name (a snapshot). */
    public CommStatistics statistics() {
        return counters.snapshot();
    }

    /** The peer, or null while it is not known yet. */
    @Override
    public Connection connection() {
        return connection;
    }

    @Override
    public PeerLiveness liveness() {
        return liveness;
    }

    @Override
    public int outstanding() {
        return requests.outstanding();
    }

    /** The endpoint as this communicator and its requests see it. */
    public CommHost host() {
        return host;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Its close has begun: it takes nothing more. */
    public void markClosed() {
        closed = true;
    }

    /**
     * Fails every request posted and not yet returned by test, those already done too: once the peer
     * is condemned, no request of the communicator reports success (a later one can finish before an
     * earlier one, which would then fail while the later one succeeded).
     */
    @Override
    public void peerDead(RdmaException cause) {
        abandonRequests(cause, request -> true);
    }

    /** Fails every request posted, not yet returned by test, and {@code which}. */
    protected final void abandonRequests(RdmaException cause, Predicate<R> which) {
        for (int i = 0; i < requests.created(); i++) {
            R request = requests.at(i);
            if (request.inUse() && which.test(request)) {
                request.abandon(cause);
            }
        }
    }

    /** Whether operations of its requests are still in flight (a send's writes, a receive's tagged receives). */
    public boolean operationsInFlight() {
        for (int i = 0; i < requests.created(); i++) {
            R request = requests.at(i);
            if (request.inUse() && request.pendingOps() > 0) {
                return true;
            }
        }
        return false;
    }

    /** Closes it, waiting for its peer as its endpoint's close of it says. */
    @Override
    public abstract void close() throws RdmaException;

    /** Closed: the fate of the peer's destinations no longer concerns it. */
    public void forgetPeers() {
        if (connection != null) {
            connection.unwatch(liveness);
            connection.release();
        }
    }

    /** Drops its requests when it has had none outstanding a while (the endpoint's slow duties); whether it did. */
    public boolean trimIfIdle(long now) {
        return requests.trimIfIdle(now);
    }
}
