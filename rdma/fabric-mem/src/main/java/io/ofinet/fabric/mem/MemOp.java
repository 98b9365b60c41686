package io.ofinet.fabric.mem;

import io.ofinet.fabric.Fi;

/**
 * An operation on its way to an endpoint of the in-memory network: a message, a write or a read, with
 * the endpoint that posted it; {@code key} is a write's or read's remote key, or a tagged message's tag;
 * {@code errnoAfterDelivery}, when not 0, the error its initiator's completion reports all the same
 * once it is delivered ({@link MemFaults#failNextCompletionsAfterDelivery}).
 */
record MemOp(Kind kind, MemEndpoint initiator, long context, long buf, long len, long data, boolean hasData,
        long remoteAddr, long key, boolean tagged, int errnoAfterDelivery) {

    enum Kind { SEND, WRITE, READ }

    /** The completion flags of an operation of {@code kind} at its initiator. */
    static long flags(Kind kind, boolean tagged) {
        switch (kind) {
            case SEND:
                return Fi.SEND | (tagged ? Fi.TAGGED : Fi.MSG);
            case WRITE:
                return Fi.RMA | Fi.WRITE;
            default:
                return Fi.RMA | Fi.READ;
        }
    }

    long flags() {
        return flags(kind, tagged);
    }

    /** Completes this operation at its initiator, delivered: done, or in the error injected after delivery. */
    void delivered() {
        MemEndpoint.complete(initiator, context, flags(), 0, errnoAfterDelivery,
                errnoAfterDelivery == 0 ? "" : "injected completion error after delivery");
    }
}
