package io.ofinet.fabric.mem;

import io.ofinet.fabric.FiErrno;
import java.util.ArrayList;
import java.util.List;

/**
 * Cancels an endpoint answers late ({@link MemFaults#holdCancels}), as a provider answers the cancel
 * of a receive it has matched already only when the message has landed: each answer is held for
 * a time from its cancel, then reaches the completion queue at the endpoint's next progress.
 * Guarded by the network's monitor, as the endpoint.
 */
final class MemHeldCancels {
    private record Answer(long due, long context, long flags) {}

    private final List<Answer> held = new ArrayList<>();
    private int count;
    private long holdNanos;

    void arm(int times, long nanos) {
        this.count = times;
        this.holdNanos = nanos;
    }

    /** Whether the cancel of {@code context} is held; if so its answer is kept until due. */
    boolean hold(long context, long flags) {
        if (count == 0) {
            return false;
        }
        count--;
        held.add(new Answer(System.nanoTime() + holdNanos, context, flags));
        return true;
    }

    /** Gives each answer that is due to {@code endpoint}'s completion queue. */
    void release(MemEndpoint endpoint) {
        long now = System.nanoTime();
        for (int i = 0; i < held.size(); i++) {
            Answer answer = held.get(i);
            if (answer.due - now <= 0) {
                held.remove(i--);
                MemEndpoint.complete(endpoint, answer.context, answer.flags, 0, FiErrno.FI_ECANCELED,
                        "cancelled");
            }
        }
    }
}
