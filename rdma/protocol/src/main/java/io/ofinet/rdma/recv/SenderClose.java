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
    /**
     * What the sender sent that the receiver counts, modulo 2^10, as its close says: eager messages,
     * requests to send and heads, written segments (or their notices), tagged messages, errors.
     */
    private int sent;
    /** What of that arrived so far, modulo 2^10. */
    private int arrivals;

    /** Fails the receives with a buffer nothing filled. */
    private final Runnable failUnserved;

    /**
     * @param failUnserved fails the communicator's receives with a buffer nothing filled, once
     *     nothing more comes from the sender
     */
    public SenderClose(RailSet rails, int dataRails, Runnable failUnserved) {
        this.rails = rails;
        this.dataRails = dataRails;
        this.failUnserved = failUnserved;
    }

    /**
     * The confirmation arrived on engine rail {@code rail}, saying that the sender sent {@code
     * counted} arrivals (modulo 2^10).
     */
    public void arrived(int rail, int counted) {
        if (rail < dataRails) {
            confirmedRails |= 1 << rail;
        }
        if (!said) {
            sent = counted;
        }
        said = true;
    }

    /** Something the sender counts arrived from it (whatever became of it). */
    public void counted() {
        arrivals = (arrivals + 1) & Limits.SEQ_MASK;
    }

    /**
     * Whether nothing more comes from the sender: it said it closed, its writes ended, and all it
     * counted arrived. A receive not finished then never will be; one posted later completes only
     * from what is held. (On a provider whose close signal may overtake the sender's writes and
     * messages, as shm's control rail does its data rail's completions, the count is what tells.)
     */
    public boolean done() {
        return said && writesEnded() && arrivals == sent;
    }

    /**
     * After something the sender counts arrived and was handled, or its close: once the sender has
     * closed and all it counted arrived, the receives that nothing more will fill fail.
     */
    public void afterArrival() {
        failUnservedIfDone();
    }

    /** Fails the receives with a buffer nothing filled once {@link #done}. */
    void failUnservedIfDone() {
        if (done()) {
            failUnserved.run();
        }
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
