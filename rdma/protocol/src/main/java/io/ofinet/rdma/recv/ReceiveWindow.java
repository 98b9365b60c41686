package io.ofinet.rdma.recv;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.seq.MessageWindow;
import io.ofinet.rdma.wire.Limits;

/**
 * A receive communicator's sequence numbers: the next one to give (each buffer of a
 * receive takes one), and its posted receives by number until each completes. Touched only with
 * the endpoint held.
 */
final class ReceiveWindow {
    private final MessageWindow<RecvRequest> window = new MessageWindow<>(Limits.SEQ_BITS, Limits.WINDOW, 0);
    private int next;

    /** The number the next receive's first buffer takes. */
    int next() {
        return next;
    }

    /** Whether a receive of {@code count} buffers fits in the window now. */
    boolean fits(int count) {
        return window.canInsert(window.add(next, count - 1));
    }

    /** Gives {@code request}'s {@code count} buffers the next numbers; returns the first. */
    int insert(RecvRequest request, int count) {
        int seq = next;
        for (int k = 0; k < count; k++) {
            window.insert(window.add(seq, k), request);
        }
        next = window.add(next, count);
        return seq;
    }

    /** The posted receive whose buffer {@code index} has number {@code seq}; {@code what} arrived for it. */
    RecvRequest posted(int seq, int index, String what) throws RdmaException {
        RecvRequest request = find(seq, index);
        if (request == null) {
            throw new RdmaException(ErrorCategory.REMOTE, what + " for receive " + seq + " buffer " + index
                    + ", which is not posted");
        }
        return request;
    }

    /**
     * Whether {@code seq} went to a receive that has left the window (done, or failed), as the
     * window knows it: in the window and completed, or behind it; false for a number not given yet.
     */
    boolean ended(int seq) {
        return window.status(seq) == MessageWindow.Status.COMPLETED;
    }

    /** The posted receive whose buffer {@code index} has number {@code seq}, or null. */
    RecvRequest find(int seq, int index) {
        RecvRequest request = window.retrieve(seq);
        return request == null || request.seq != seq || index >= request.buffers ? null : request;
    }

    /**
     * {@code request} is done or failed: its numbers leave the window, and what arrives for them is
     * dropped. Numbers it no longer holds (it left already, or never entered) are left alone.
     *
     * @return whether it held numbers here until now: false when it had left already
     */
    boolean complete(RecvRequest request) {
        boolean held = false;
        for (int k = 0; k < request.buffers; k++) {
            int seq = window.add(request.seq, k);
            if (window.retrieve(seq) == request) {
                window.complete(seq);
                held = true;
            }
        }
        return held;
    }
}
