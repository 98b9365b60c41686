package io.ofinet.rdma.recv;

import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Immediate;

/**
 * What arrives for a receive communicator from its sender — data segments, eager messages,
 * errors, its close — as the endpoint's dispatch hands it over. Each but the close is counted for
 * the close ({@link SenderClose}), whatever becomes of it, and once the sender has closed, the last
 * arrival leaves the receives that nothing more will fill, which then fail. Touched only with the
 * endpoint held.
 */
public final class SenderArrivals {
    /** Why a segment is not the sender's: its buffer was announced to take one tagged message. */
    private static final String FOR_A_TAGGED_BUFFER = "whose buffer takes one tagged message instead";
    /** Why a segment is not the sender's: it is longer than what its buffer has left. */
    private static final String BEYOND_ITS_BUFFER = "longer than what its buffer has left";

    private final RecvComm comm;
    private final ReceiveWindow window;
    private final EagerInbox inbox;
    private final SenderClose senderClose;

    SenderArrivals(RecvComm comm, ReceiveWindow window, EagerInbox inbox, SenderClose senderClose) {
        this.comm = comm;
        this.window = window;
        this.inbox = inbox;
        this.senderClose = senderClose;
    }

    /**
     * A segment of {@code bytes} of buffer {@code index} of receive {@code seq}, one of {@code
     * segments}, arrived written or announced by its notice.
     *
     * @return null; or, when it contradicts what this side announced of its buffer, why: it is then
     *     not from the sender ({@link #contradiction}), neither counted nor charged
     */
    public String segment(int seq, int index, int segments, long bytes) throws RdmaException {
        RecvRequest posted = window.find(seq, index);
        String contradiction = posted == null ? null : contradiction(posted, index, bytes);
        if (contradiction != null) {
            return contradiction;
        }
        comm.liveness().heard(comm.host().stepNanos());
        senderClose.counted();
        try {
            // Looked up once above; only a receive not posted is asked for again, for its failure.
            RecvRequest request = posted != null ? posted : window.posted(seq, index, "a segment");
            request.reachedSender();
            request.segment(index, segments, bytes);
            comm.progressed(request);
        } finally {
            senderClose.afterArrival();
        }
        return null;
    }

    /**
     * Why a written segment or write notice of {@code bytes} for buffer {@code i} of {@code request}
     * contradicts what this side announced of that buffer, so that no sender that keeps the protocol
     * sent it (docs/PROTOCOL.md, "What a peer can forge"); null when it does not. Changes nothing: a
     * contradicting segment is neither counted nor charged.
     */
    private static String contradiction(RecvRequest request, int i, long bytes) {
        if (request.tagged.has(i)) {
            return FOR_A_TAGGED_BUFFER;
        }
        return bytes > request.capacity[i] - request.received[i] ? BEYOND_ITS_BUFFER : null;
    }

    /**
     * Eager message, request to send or head {@code seq} arrived in {@code buffer} ({@code len}
     * bytes): delivered to its buffer, held until that is posted, or dropped when its receive has
     * failed.
     *
     * @return whether the buffer is held
     */
    public boolean eager(EagerBuffer buffer, long len, int seq) throws RdmaException {
        comm.liveness().heard(comm.host().stepNanos());
        comm.announceOwed();
        senderClose.counted();
        try {
            return inbox.arrived(buffer, len, seq);
        } finally {
            senderClose.afterArrival();
        }
    }

    /**
     * The sender refused a send into buffer {@code index} of receive {@code seq}, for {@code reason}:
     * it sends nothing more there. A receive that ended already (another of its buffers failed it,
     * or its stall check did) has nothing more to fail: the error is dropped.
     */
    public void error(int seq, int index, int reason) throws RdmaException {
        comm.liveness().heard(comm.host().stepNanos());
        senderClose.counted();
        try {
            if (window.find(seq, index) == null && window.ended(seq)) {
                return;
            }
            RecvRequest request = window.posted(seq, index, "an error");
            request.reachedSender();
            if (reason == Immediate.ERROR_SEND_FAILED) {
                request.stalled(1 << index, new RdmaException(ErrorCategory.REMOTE, "irecv: the sender's writes"
                        + " into buffer " + index + " did not complete (they failed, or stalled past peerTimeoutMs);"
                        + " a data rail may be down"));
            } else {
                request.settled(index);
                request.fail(new RdmaException(ErrorCategory.INVALID_USAGE, "irecv: the sender's message did not fit"
                        + " receive buffer " + index + " of " + request.capacity[index] + " bytes (tag "
                        + request.tag[index] + "); nothing was written"));
            }
        } finally {
            senderClose.afterArrival();
        }
    }

    /**
     * The sender closed, as its close signal on engine rail {@code rail} says, having sent {@code
     * counted} arrivals this side counts (modulo 2^10): once all have arrived, the receives with a
     * buffer nothing filled fail.
     */
    public void closed(int counted, int rail) {
        senderClose.arrived(rail, counted);
        senderClose.afterArrival();
    }
}
