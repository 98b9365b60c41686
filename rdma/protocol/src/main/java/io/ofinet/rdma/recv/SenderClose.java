package io.ofinet.rdma.recv;

import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.wire.Limits;

/**
 * What a receive communicator knows of its sender's close (docs/PROTOCOL.md, "Closing"): whether
 * the sender said it writes no more, and on which data rails that confirmation arrived behind its
 * writes. Touched only with the endpoint held.
 */
public final class SenderClose {
    private final RailSet rails;
    private final int dataRails;
    /** The sender said it writes no more: receives it did not serve fail. */
    private boolean said;
    /** The data rails on which the confirmation arrived, as bits. */
    private int confirmedRails;
    /** The first message the sender did not send; those before it it sent. */
    private int firstUnserved;

    public SenderClose(RailSet rails, int dataRails) {
        this.rails = rails;
        this.dataRails = dataRails;
    }

    /**
     * The confirmation arrived on engine rail {@code rail}, naming {@code unserved} the first
     * message the sender did not send; true the first time the sender says it.
     */
    public boolean arrived(int rail, int unserved) {
        if (rail < dataRails) {
            confirmedRails |= 1 << rail;
        }
        boolean first = !said;
        if (first) {
            firstUnserved = unserved;
        }
        said = true;
        return first;
    }

    /**
     * Whether the sender said it closed without sending all that receive {@code seq} of {@code
     * buffers} buffers waits for: its last message is the first unserved one or later (in the window).
     * A receive before it completes as its messages arrive, even one posted after the close.
     */
    public boolean unserved(int seq, int buffers) {
        return said && ((seq + buffers - 1 - firstUnserved) & ((1 << Limits.SEQ_BITS) - 1)) < Limits.WINDOW;
    }

    /** Whether the sender said it writes no more. */
    public boolean said() {
        return said;
    }

    /**
     * Whether nothing of the sender's can still land in the communicator's buffers: the confirmation
     * arrived behind its writes on every data rail, or, where the provider does not keep that order,
     * once on control rail 0 after its writes completed.
     */
    public boolean writesEnded() {
        if (!rails.confirmsCloseOnDataRails()) {
            return said;
        }
        return confirmedRails == (1 << dataRails) - 1;
    }
}
