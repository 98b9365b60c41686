package io.ofinet.fabric.mem;

import io.ofinet.fabric.Fi;

/**
 * An operation on its way to an endpoint of the in-memory network: a message, a write or a read, with
 * the endpoint that posted it; {@code key} is a write's or read's remote key, or a tagged message's tag.
 */
record MemOp(Kind kind, MemEndpoint initiator, long context, long buf, long len, long data, boolean hasData,
        long remoteAddr, long key, boolean tagged) {

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
}
