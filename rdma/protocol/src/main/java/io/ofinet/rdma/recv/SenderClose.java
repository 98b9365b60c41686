package io.ofinet.rdma.recv;

import io.ofinet.rdma.rail.RailSet;

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
    /** How many messages matched by tag the sender sent, modulo 2^10. */
    private int sent;

    public SenderClose(RailSet rails, int dataRails) {
        this.rails = rails;
        this.dataRails = dataRails;
    }

    /**
     * The confirmation arrived on engine rail {@code rail}, saying that the sender sent {@code
     * messages} messages matched by tag (modulo 2^10).
     */
    public void arrived(int rail, int messages) {
        if (rail < dataRails) {
            confirmedRails |= 1 << rail;
        }
        if (!said) {
            sent = messages;
        }
        said = true;
    }

    /**
     * Whether nothing more comes from the sender: it said it closed, its writes ended, and the
     * {@code arrivals} messages matched by tag that arrived (modulo 2^10) are all it sent. A receive
     * not finished then never will be; one posted later completes only from what is held.
     */
    public boolean done(int arrivals) {
        return said && writesEnded() && arrivals == sent;
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
