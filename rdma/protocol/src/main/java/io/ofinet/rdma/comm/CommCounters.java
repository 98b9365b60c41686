package io.ofinet.rdma.comm;

/**
 * A communicator's counts for {@link CommStatistics}: written with the endpoint held, read from
 * anywhere (a reader may see a count a step old).
 */
public final class CommCounters {
    private long messages;
    private long bytes;
    private long forged;
    private long malformed;
    private long refusedAfterDone;

    /** A request was reported done, with {@code n} bytes. */
    public void moved(long n) {
        messages++;
        bytes += n;
    }

    /** An arrival naming the communicator was dropped as not from its peer. */
    public void forged() {
        forged++;
    }

    /** A data segment naming the communicator broke a rule and was dropped. */
    public void malformed() {
        malformed++;
    }

    /** The receiver refused an eager message that had completed here. */
    public void refusedAfterDone() {
        refusedAfterDone++;
    }

    public CommStatistics snapshot() {
        return new CommStatistics(messages, bytes, forged, malformed, refusedAfterDone);
    }
}
