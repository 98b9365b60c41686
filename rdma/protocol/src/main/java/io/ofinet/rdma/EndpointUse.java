package io.ofinet.rdma;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.Connection;
import java.util.ArrayList;
import java.util.List;

/**
 * What of an endpoint is in use, for the close of one that nothing will use again
 * ({@link EndpointClosing#closeIfAbandoned}; docs/PROTOCOL.md, "Threading"): the thread it was
 * opened for, if any, the buffers the application registered for it and has not deregistered, and
 * the destinations of peers that stopped to which the provider still holds closed send
 * communicators' operations, which only the endpoint's close ends (docs/FABRIC.md, "a stalled
 * peer's operations"). The count and the destinations are touched holding the endpoint; whether
 * the thread has ended is read without it.
 */
final class EndpointUse {
    private static final System.Logger LOG = System.getLogger(EndpointUse.class.getName());
    /** The thread the endpoint was opened for ({@link Device#endpointForCurrentThread}), or null. */
    private final Thread owner;
    private int userBuffers;
    /** Why the endpoint closes, set holding it once it is found unused for good: what comes after is refused. */
    private volatile String abandoned;
    /**
     * Destinations with operations stranded in the provider: in flight, or posts it refused waiting,
     * when a send communicator closed with its writes not all ended.
     */
    private final List<PeerQueue> stranded = new ArrayList<>(0);
    /** Whether {@link #stranded} had any at its last change: a hint read without the endpoint. */
    private volatile boolean mayHoldStranded;
    /** The endpoint's own close has begun ({@link #closing()}). */
    private boolean closing;

    EndpointUse(Thread owner) {
        this.owner = owner;
    }

    void registered() {
        userBuffers++;
    }

    void deregistered() {
        userBuffers--;
    }

    /** From now on the endpoint closes as abandoned, for the reason {@code why}; the caller holds it. */
    void markAbandoned(String why) {
        abandoned = why;
    }

    /** Whether the endpoint closes, or has closed, as abandoned ({@link #markAbandoned}). */
    boolean abandoned() {
        return abandoned != null;
    }

    /** Refuses a call (listen, connect, accept, a registration) on an endpoint closing as abandoned. */
    void requireNotAbandoned() throws RdmaException {
        String why = abandoned;
        if (why != null) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closing: " + why);
        }
    }

    /**
     * A send communicator closed with its writes not all ended: its peer presumed dead, or the
     * close's wait for them over. The destinations of its connection to which the provider still
     * holds operations, or where posts it refused wait, are kept until those end or the endpoint
     * closes. The caller holds the endpoint.
     */
    void closedWithStranded(Connection connection) {
        if (connection == null) {
            return;
        }
        stranded.removeIf(PeerQueue::drained);
        connection.queuesNotDrained(stranded);
        mayHoldStranded = !stranded.isEmpty();
        if (mayHoldStranded && owner == null && !closing) {
            LOG.log(System.Logger.Level.WARNING, "an endpoint the application opened: " + describeStranded()
                    + "; close it before freeing the memory of the sends it had with that peer");
        }
    }

    /** The endpoint's own close has begun: what its communicators' closes leave stranded goes with it. */
    void closing() {
        closing = true;
    }

    /**
     * Whether the endpoint may close for what is stranded ({@link #closedWithStranded}), when
     * nothing of it is in use: it was opened for the calling thread, which alone would use it
     * again (at its next call it opens another), and something may still be stranded. Read without
     * the endpoint.
     */
    boolean mayCloseForStranded() {
        return mayHoldStranded && owner == Thread.currentThread();
    }

    /**
     * What is stranded, for the log, or null when nothing: the destinations whose operations have
     * all ended since are dropped. The caller holds the endpoint.
     */
    String describeStranded() {
        stranded.removeIf(PeerQueue::drained);
        mayHoldStranded = !stranded.isEmpty();
        if (stranded.isEmpty()) {
            return null;
        }
        int operations = 0;
        for (PeerQueue queue : stranded) {
            operations += queue.inFlight() + queue.pending();
        }
        return operations + " operation(s) of closed send communicators to peers that stopped were still in the"
                + " provider or waiting for it (" + stranded.get(0)
                + (stranded.size() > 1 ? " and " + (stranded.size() - 1) + " more" : "")
                + "), which only the endpoint's close ends";
    }

    /** Whether the endpoint was opened for a thread, and that thread has ended. */
    boolean ownerEnded() {
        return owner != null && !owner.isAlive();
    }

    /** The name of the thread the endpoint was opened for. */
    String ownerName() {
        return owner == null ? "(none)" : owner.getName();
    }

    /**
     * Whether nothing of the endpoint is in use at {@code now}: no buffer registered for it, no
     * listen, send or receive communicator, no connection being accepted, and no connection being
     * made but those a connect call has not taken within {@code connectionTimeoutMs}, which the
     * application gave up (an abort that ended NCCL's connect loop; the close closes them). The
     * caller holds the endpoint.
     */
    boolean unused(CommTable comms, Handshake handshake, long now) {
        return userBuffers == 0 && handshake.listens().isEmpty() && handshake.givenUp(now)
                && !comms.anyOpen(handshake::making);
    }
}
