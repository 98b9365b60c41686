package io.ofinet.rdma.comm;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.Function;

/**
 * A communicator's requests of one kind: made when first needed, up to the bound the plugin
 * interface guarantees the communicator, reused once returned (oldest returned first, so that a
 * request is reused as late as possible), and dropped when the communicator has had none
 * outstanding, taken or given back for {@link #IDLE_NANOS}. An idle communicator so holds no
 * request, and a busy one allocates nothing in steady state: its pool stays at the most requests
 * it has had outstanding at once. Touched only with the endpoint held.
 */
public final class RequestPool<R extends Request> {
    /** How long a communicator has had nothing outstanding before its requests are dropped. */
    public static final long IDLE_NANOS = 1_000_000_000L;
    private static final int FIRST_CAPACITY = 4;

    private final int bound;
    private final Function<RequestPool<R>, R> make;
    private Request[] all = new Request[FIRST_CAPACITY];
    private int created;
    private ArrayDeque<Request> free = new ArrayDeque<>(FIRST_CAPACITY);
    /** A request was taken or given back since the last {@link #trimIfIdle}. */
    private boolean used;
    /** When {@link #trimIfIdle} last found the pool in use. */
    private long lastBusyNanos;

    /** A pool of at most {@code bound} requests, each made by {@code make}, given the pool it returns to. */
    public RequestPool(int bound, Function<RequestPool<R>, R> make) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound " + bound);
        }
        this.bound = bound;
        this.make = make;
    }

    /** A request for a new use (not yet begun), or null when {@code bound} are outstanding. */
    @SuppressWarnings("unchecked")
    public R take() {
        used = true;
        Request r = free.poll();
        if (r != null) {
            return (R) r;
        }
        if (created == bound) {
            return null;
        }
        if (created == all.length) {
            all = Arrays.copyOf(all, Math.min(bound, all.length * 2));
        }
        R made = make.apply(this);
        all[created++] = made;
        return made;
    }

    /** Whether another request can be taken now. */
    public boolean available() {
        return !free.isEmpty() || created < bound;
    }

    /** Returns a request in use to the pool; one returned already is left alone. */
    public void give(Request request) {
        if (request.inUse) {
            request.inUse = false;
            used = true;
            free.add(request);
        }
    }

    /** Returns a request taken and not begun, as when its post could not go ahead. */
    public void putBack(R request) {
        free.addFirst(request);
    }

    /** Requests taken and not yet given back. */
    public int outstanding() {
        return created - free.size();
    }

    /** Requests made so far (taken or free): indexes for {@link #at}. */
    public int created() {
        return created;
    }

    /** The {@code index}-th request made, in use or not. */
    @SuppressWarnings("unchecked")
    public R at(int index) {
        return (R) all[index];
    }

    /**
     * Called periodically (the endpoint's slow duties): drops every request once the pool has had
     * none outstanding, taken or given back for {@link #IDLE_NANOS} up to {@code now}; whether it did.
     */
    public boolean trimIfIdle(long now) {
        if (used || outstanding() > 0) {
            used = false;
            lastBusyNanos = now;
            return false;
        }
        if (created == 0 || now - lastBusyNanos <= IDLE_NANOS) {
            return false;
        }
        all = new Request[FIRST_CAPACITY];
        free = new ArrayDeque<>(FIRST_CAPACITY);
        created = 0;
        return true;
    }
}
