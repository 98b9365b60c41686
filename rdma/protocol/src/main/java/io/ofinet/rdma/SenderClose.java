package io.ofinet.rdma;

/**
 * What a receive communicator knows of its sender's close (docs/PROTOCOL.md, "Closing"): whether
 * the sender said it writes no more, and on which data rails that confirmation arrived behind its
 * writes. Touched only with the endpoint held.
 */
final class SenderClose {
    private final RdmaEndpoint endpoint;
    /** The sender said it writes no more: receives it did not serve fail. */
    private boolean said;
    /** The data rails on which the confirmation arrived, as bits. */
    private int confirmedRails;

    SenderClose(RdmaEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /** The confirmation arrived on engine rail {@code rail}; true the first time the sender says it. */
    boolean arrived(int rail) {
        if (rail < endpoint.dataRails()) {
            confirmedRails |= 1 << rail;
        }
        boolean first = !said;
        said = true;
        return first;
    }

    /** Whether the sender said it writes no more. */
    boolean said() {
        return said;
    }

    /**
     * Whether nothing of the sender's can still land in the communicator's buffers: the confirmation
     * arrived behind its writes on every data rail, or, where the provider does not keep that order,
     * once on control rail 0 after its writes completed.
     */
    boolean writesEnded() {
        if (!endpoint.railSet.confirmsCloseOnDataRails()) {
            return said;
        }
        return confirmedRails == (1 << endpoint.dataRails()) - 1;
    }
}
