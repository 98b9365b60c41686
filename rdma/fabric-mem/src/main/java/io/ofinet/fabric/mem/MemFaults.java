package io.ofinet.fabric.mem;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FiErrno;

/**
 * Faults to inject into an in-memory network. Thread-safe. A fault meant for one operation can be
 * armed for one kind of operation ({@link Ops}), so that the endpoint's other traffic — a
 * keepalive that falls due on any thread between the arming and the operation — passes it by.
 */
public final class MemFaults {
    /** The operations a fault is armed for. */
    public enum Ops {
        /** Every operation posted on the endpoint. */
        ANY,
        /** Messages: fi_send, fi_senddata, fi_sendmsg, fi_tsenddata. */
        SENDS,
        /** RDMA writes: fi_write, fi_writedata, fi_writemsg. */
        WRITES,
        /** RDMA reads. */
        READS,
        /** Receives, tagged or not (posts only: a receive's completion is not its own to fail). */
        RECEIVES;

        /** Whether an operation of {@code kind} (null: a receive) is one of these. */
        boolean covers(MemOp.Kind kind) {
            return switch (this) {
                case ANY -> true;
                case SENDS -> kind == MemOp.Kind.SEND;
                case WRITES -> kind == MemOp.Kind.WRITE;
                case READS -> kind == MemOp.Kind.READ;
                case RECEIVES -> kind == null;
            };
        }
    }

    private final MemNetwork network;

    MemFaults(MemNetwork network) {
        this.network = network;
    }

    /**
     * The next {@code count} posts on {@code endpoint} fail at once: with {@code -FI_EAGAIN} they
     * return {@link Endpoint#AGAIN}, with any other error number they throw.
     */
    public void failNextPosts(Endpoint endpoint, int count, int errno) {
        failNextPosts(endpoint, Ops.ANY, count, errno);
    }

    /** As {@link #failNextPosts(Endpoint, int, int)}, for the next {@code count} posts of {@code ops} only. */
    public void failNextPosts(Endpoint endpoint, Ops ops, int count, int errno) {
        synchronized (network) {
            ((MemEndpoint) endpoint).failPosts.arm(ops, count, errno);
        }
    }

    /** The next {@code count} operations posted on {@code endpoint} complete with an error. */
    public void failNextCompletions(Endpoint endpoint, int count, int errno) {
        failNextCompletions(endpoint, Ops.ANY, count, errno);
    }

    /**
     * As {@link #failNextCompletions(Endpoint, int, int)}, for the next {@code count} operations of
     * {@code ops} only ({@link Ops#RECEIVES} meets none: receives complete as their messages land).
     */
    public void failNextCompletions(Endpoint endpoint, Ops ops, int count, int errno) {
        synchronized (network) {
            ((MemEndpoint) endpoint).failCompletions.arm(ops, count, errno);
        }
    }

    /** How many operations of {@code endpoint} the faults armed by {@link #failNextCompletions} are still to fail. */
    public int completionFaultsLeft(Endpoint endpoint) {
        synchronized (network) {
            return ((MemEndpoint) endpoint).failCompletions.left();
        }
    }

    /**
     * The next {@code count} operations of {@code ops} posted on {@code endpoint} are delivered, and
     * complete at their initiator with {@code errno} all the same: as rxm may fail what it had written
     * to a connection that then reset.
     */
    public void failNextCompletionsAfterDelivery(Endpoint endpoint, Ops ops, int count, int errno) {
        synchronized (network) {
            ((MemEndpoint) endpoint).failAfterDelivery.arm(ops, count, errno);
        }
    }

    /**
     * The next {@code count} reads of {@code endpoint}'s completion queue fail with {@code errno},
     * taking nothing off it: the provider's answer when the queue itself is broken.
     */
    public void failNextQueueReads(Endpoint endpoint, int count, int errno) {
        synchronized (network) {
            ((MemEndpoint) endpoint).failReads.arm(Ops.ANY, count, errno);
        }
    }

    /**
     * The next {@code count} cancels on {@code endpoint} are answered {@code holdNanos} after they
     * were asked, at the endpoint's first progress from then: as a provider answers the cancel of a
     * receive whose message it is still taking in. The receive takes nothing more meanwhile.
     */
    public void holdCancels(Endpoint endpoint, int count, long holdNanos) {
        synchronized (network) {
            ((MemEndpoint) endpoint).heldCancels.arm(count, holdNanos);
        }
    }

    /**
     * The endpoint's next progress (a read of its completion queue, on whichever thread) first runs
     * {@code what}, inside the provider and holding the whole in-memory network's lock (every other
     * call on the network waits): a provider call that takes as long as {@code what} does, for tests
     * of what waits for a call in progress.
     */
    public void atNextProgress(Endpoint endpoint, Runnable what) {
        synchronized (network) {
            ((MemEndpoint) endpoint).atNextProgress = what;
        }
    }

    /**
     * The endpoint vanishes, as a peer whose process died: what was on its way to it completes
     * in error at the initiators, later operations to it fail with {@code FI_EHOSTUNREACH}, and
     * it neither delivers nor completes anything more.
     */
    public void vanish(Endpoint endpoint) {
        synchronized (network) {
            ((MemEndpoint) endpoint).vanish(FiErrno.FI_EHOSTUNREACH);
        }
    }
}
