package io.ofinet.rdma;

/**
 * A communicator's counts for {@link CommStatistics}: written with the endpoint held, read from
 * anywhere (a reader may see a count a step old).
 */
final class CommCounters {
    private long messages;
    private long bytes;
    private long forged;
    private long malformed;
    private long refusedAfterDone;

    /** A request was reported done, with {@code n} bytes. */
    void moved(long n) {
        messages++;
        bytes += n;
    }

    /** An arrival naming the communicator was dropped as not from its peer. */
    void forged() {
        forged++;
    }

    /** A data segment naming the communicator broke a rule and was dropped. */
    void malformed() {
        malformed++;
    }

    /** The receiver refused an eager message that had completed here. */
    void refusedAfterDone() {
        refusedAfterDone++;
    }

    CommStatistics snapshot() {
        return new CommStatistics(messages, bytes, forged, malformed, refusedAfterDone);
    }
}
