package io.ofinet.rdma.progress;

import io.ofinet.rdma.error.RdmaException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The posts to one destination — one peer address on one rail of an endpoint — that the provider
 * refused with -FI_EAGAIN, waiting to be posted again in order. A refusal delays only later posts
 * to the same destination: every other destination has its own queue. A destination whose posts
 * stay refused past the engine's bound is condemned: its waiting posts fail, later posts fail at
 * once, and the communicators that registered a {@link Listener} are told.
 *
 * <p>Owned by the endpoint's progress engine, like every other piece of endpoint state: touched
 * only by the thread that holds the endpoint.
 */
public final class PeerQueue {
    /** Told when the destination is condemned. */
    @FunctionalInterface
    public interface Listener {
        void condemned(RdmaException cause);
    }

    /** How long posts to a new peer are refused before the provider is asked why ({@link #unreachable}). */
    static final long UNREACHABLE_CHECK_NANOS = 100_000_000L;

    private final String name;
    /** A peer's address, not this endpoint's own (posted receives, flush reads). */
    private final boolean remote;
    /** The engine rail it posts on, where known (-1): the engine counts what is in flight on quiet rails. */
    int rail = -1;
    /**
     * How long refusals with nothing in flight here are taken as evidence that the peer is gone,
     * or 0 where a refusal says nothing of the kind (see {@link #refusedReconnect}).
     */
    private final long refusedReconnectNanos;
    /** Why the peer cannot be reached, as the provider's state shows it, or null ({@link #unreachable}). */
    private Supplier<String> reachability = () -> null;
    /** Operations posted here and not yet completed. */
    int inFlight;
    /** A post here was accepted once: a connection to the peer was made. */
    boolean accepted;
    final ArrayDeque<Operation> pending = new ArrayDeque<>(64);
    /** In the engine's list of destinations with waiting posts. */
    boolean active;
    /** When the present spell of refusals began: the last time a post was accepted. */
    long refusedSinceNanos;
    /** Not retried before this time: retries to a refusing destination back off. */
    long nextRetryNanos;
    /** The present spell of refusals was logged. */
    boolean reported;
    /** Refusals counted since the queue was made, for the log and the tests. */
    long refusals;
    RdmaException condemned;
    private final List<Listener> listeners = new ArrayList<>(2);

    /** This endpoint's own queue on a rail: nothing it sees is evidence about a peer. */
    public PeerQueue(String name) {
        this(name, false, 0);
    }

    /**
     * @param name what the destination is, for errors: e.g. {@code 127.0.0.1:41234 on data rail 0}
     * @param remote a peer's address: an error completion of an operation to it condemns it
     * @param refusedReconnectNanos see {@link #refusedReconnect}; 0 for none
     */
    public PeerQueue(String name, boolean remote, long refusedReconnectNanos) {
        this.name = name;
        this.remote = remote;
        this.refusedReconnectNanos = refusedReconnectNanos;
    }

    /** Names the engine rail this destination's posts go on. */
    public PeerQueue onRail(int engineRail) {
        this.rail = engineRail;
        return this;
    }

    /** Names where to look when this destination's posts stay refused ({@link #unreachable}). */
    public PeerQueue reachability(Supplier<String> why) {
        this.reachability = why;
        return this;
    }

    /**
     * Why the peer cannot be reached, or null, asked once its posts have been refused for
     * {@code refusingNanos}: after {@link #UNREACHABLE_CHECK_NANOS}, and only while no post to it was
     * ever accepted. A provider that cannot reach a new peer may say no more than -FI_EAGAIN (shm 1.17
     * when the peer's region is gone); one that accepted a post here has reached the peer, and a
     * refusal since is the peer being busy.
     */
    String unreachable(long refusingNanos) {
        return accepted || refusingNanos < UNREACHABLE_CHECK_NANOS ? null : reachability.get();
    }

    /**
     * Whether the present spell of refusals is evidence that the peer is gone. On a connected
     * provider such as {@code ofi_rxm}, a post to a peer whose connection broke starts a new
     * connection and is refused with -FI_EAGAIN while it is made; a dead peer's address refuses
     * every such attempt, so its posts stay refused although nothing of ours is in flight to it.
     * A live peer that is slow or stopped refuses posts only while earlier ones have not gone out,
     * that is, with operations in flight. (A first connection to a peer that pauses is refused the
     * same way; it counts only once a post to the peer was accepted.)
     */
    boolean refusedReconnect(long refusingNanos) {
        return refusedReconnectNanos > 0 && accepted && inFlight == 0 && refusingNanos > refusedReconnectNanos;
    }

    boolean remote() {
        return remote;
    }

    /** Operations posted here and not yet completed. */
    public int inFlight() {
        return inFlight;
    }

    public String name() {
        return name;
    }

    /** Posts waiting. */
    public int pending() {
        return pending.size();
    }

    /** Whether nothing posted here is still in the provider, and no refused post waits. */
    public boolean drained() {
        return inFlight == 0 && pending.isEmpty();
    }

    /** Posts refused so far. */
    public long refusals() {
        return refusals;
    }

    /** Why the destination was condemned, or null. */
    public RdmaException condemned() {
        return condemned;
    }

    /** Registers a communicator's interest in this destination's fate. */
    public void listen(Listener listener) {
        listeners.add(listener);
    }

    public void unlisten(Listener listener) {
        listeners.remove(listener);
    }

    /**
     * A new connection to the destination completed its handshake: it answers, so a condemnation
     * of an earlier connection no longer holds.
     */
    public void revive() {
        if (pending.isEmpty()) {
            condemned = null;
        }
    }

    /** Tells every listener; a listener that unregisters meanwhile is still told once. */
    void notifyCondemned(RdmaException cause) {
        Listener[] now = listeners.toArray(new Listener[0]);
        for (Listener listener : now) {
            listener.condemned(cause);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
