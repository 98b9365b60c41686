package io.ofinet.rdma.rail;

/**
 * Kept receives whose arrival a step handled, posted again at the start of the next step rather
 * than at once: the arrival's step then ends, and the {@code test} that waits for it returns,
 * without the post in between. A queue linked through the receives ({@link KeptReceive}): a
 * generic queue would cast what it returns, and the compiled step then assumes the kinds of
 * receive it has seen so far until another kind arrives (a deoptimization per new kind, in the
 * middle of a stream). Owned by the endpoint's step.
 */
public final class RepostQueue {
    private KeptReceive head;
    private KeptReceive tail;

    /** Queues {@code receive}; one already waiting is queued once. */
    public void add(KeptReceive receive) {
        if (receive.repostQueued) {
            return;
        }
        receive.repostQueued = true;
        if (tail == null) {
            head = receive;
        } else {
            tail.nextRepost = receive;
        }
        tail = receive;
    }

    /**
     * Posts again those queued before this call, in the order they came; one that asks again while
     * it is posted waits for the next call, and so do those behind a post that threw.
     */
    public void postAll() {
        KeptReceive last = tail;
        KeptReceive receive = null;
        while (receive != last) {
            receive = head;
            head = receive.nextRepost;
            if (head == null) {
                tail = null;
            }
            receive.nextRepost = null;
            receive.repostQueued = false;
            receive.repost();
        }
    }

    /** Forgets what waits: the endpoint closed. */
    public void clear() {
        for (KeptReceive receive = head; receive != null; ) {
            KeptReceive next = receive.nextRepost;
            receive.nextRepost = null;
            receive.repostQueued = false;
            receive = next;
        }
        head = null;
        tail = null;
    }
}
