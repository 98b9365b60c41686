package io.ofinet.rdma;

import java.util.Arrays;
import java.util.function.Function;

/**
 * A communicator's requests of one kind: made when first needed, up to the bound the plugin
 * interface guarantees the communicator, reused once returned, and dropped when the communicator
 * has had none outstanding for {@link #IDLE_NANOS}. An idle communicator so holds no request, and
 * a busy one allocates nothing in steady state: its pool stays at the most requests it has had
 * outstanding at once. Touched only with the endpoint held.
 */
final class RequestPool<R extends Request> {
    /** How long a communicator has had nothing outstanding before its requests are dropped. */
    static final long IDLE_NANOS = 1_000_000_000L;
    private static final int FIRST_CAPACITY = 4;

    private final int bound;
    private final Function<RequestPool<R>, R> make;
    private Request[] all = new Request[FIRST_CAPACITY];
    private int created;
    private Request[] free = new Request[FIRST_CAPACITY];
    private int freeCount;
    private long lastTakenNanos;

    /** A pool of at most {@code bound} requests, each made by {@code make}, given the pool it returns to. */
    RequestPool(int bound, Function<RequestPool<R>, R> make) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound " + bound);
        }
        this.bound = bound;
        this.make = make;
    }

    /** A request for a new use (not yet begun), or null when {@code bound} are outstanding. */
    @SuppressWarnings("unchecked")
    R take() {
        lastTakenNanos = System.nanoTime();
        if (freeCount > 0) {
            R r = (R) free[--freeCount];
            free[freeCount] = null;
            return r;
        }
        if (created == bound) {
            return null;
        }
        if (created == all.length) {
            int capacity = Math.min(bound, all.length * 2);
            all = Arrays.copyOf(all, capacity);
            free = Arrays.copyOf(free, capacity);
        }
        R r = make.apply(this);
        all[created++] = r;
        return r;
    }

    /** Whether another request can be taken now. */
    boolean available() {
        return freeCount > 0 || created < bound;
    }

    /** Returns a request in use to the pool; one returned already is left alone. */
    void give(Request request) {
        if (request.inUse) {
            request.inUse = false;
            free[freeCount++] = request;
        }
    }

    /** Returns a request taken and not begun, as when its post could not go ahead. */
    void putBack(R request) {
        free[freeCount++] = request;
    }

    /** Requests taken and not yet given back. */
    int outstanding() {
        return created - freeCount;
    }

    /** Requests made so far (taken or free): indexes for {@link #at}. */
    int created() {
        return created;
    }

    /** The {@code index}-th request made, in use or not. */
    @SuppressWarnings("unchecked")
    R at(int index) {
        return (R) all[index];
    }

    /**
     * Drops every request when none is outstanding and none was taken for {@link #IDLE_NANOS}
     * before {@code now}; whether it did.
     */
    boolean trimIfIdle(long now) {
        if (created > 0 && freeCount == created && now - lastTakenNanos > IDLE_NANOS) {
            all = new Request[FIRST_CAPACITY];
            free = new Request[FIRST_CAPACITY];
            created = 0;
            freeCount = 0;
            return true;
        }
        return false;
    }
}
