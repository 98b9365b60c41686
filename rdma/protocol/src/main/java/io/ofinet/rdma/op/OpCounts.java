package io.ofinet.rdma.op;

/**
 * How many operations of each kind an endpoint posted to the provider and saw complete, and the
 * messages and bytes its communicators moved, for tests, diagnostics and the endpoint's
 * statistics. Written by the endpoint's owner; read from anywhere (a reader may see a count
 * a step old).
 */
public final class OpCounts {
    private final long[] posted = new long[RmaOp.Kind.values().length];
    private final long[] completed = new long[RmaOp.Kind.values().length];
    private long messagesSent;
    private long bytesSent;
    private long messagesReceived;
    private long bytesReceived;
    private long heads;

    public void sent(long bytes) {
        messagesSent++;
        bytesSent += bytes;
    }

    public void received(long bytes) {
        messagesReceived++;
        bytesReceived += bytes;
    }

    public void headSent() {
        heads++;
    }

    /** Large sends whose first bytes went out at once, ahead of their announcement (eagerHead). */
    public long headsSent() {
        return heads;
    }

    public void posted(RmaOp.Kind kind) {
        posted[kind.ordinal()]++;
    }

    public void completed(RmaOp.Kind kind) {
        completed[kind.ordinal()]++;
    }

    /** RDMA reads posted (the flush's). */
    public long readsPosted() {
        return posted[RmaOp.Kind.READ.ordinal()];
    }

    /** RDMA reads completed without error. */
    public long readsCompleted() {
        return completed[RmaOp.Kind.READ.ordinal()];
    }

    /** RDMA writes with immediate data posted (data segments and announcements). */
    public long writesPosted() {
        return posted[RmaOp.Kind.WRITEDATA.ordinal()];
    }

    /** RDMA writes posted without immediate data, each announced by a notice message after it. */
    public long writesNoticed() {
        return posted[RmaOp.Kind.WRITE_NOTICE.ordinal()];
    }

    /** Sends that went as one tagged message into a receive posted for it (writeNotice tagged). */
    public long taggedSent() {
        return posted[RmaOp.Kind.TSENDDATA.ordinal()];
    }

    /** Tagged receives posted, and those that took their message (cancelled ones did not). */
    public long taggedReceivesPosted() {
        return posted[RmaOp.Kind.TRECV.ordinal()];
    }

    public long taggedReceived() {
        return completed[RmaOp.Kind.TRECV.ordinal()];
    }

    public long messagesSent() {
        return messagesSent;
    }

    public long bytesSent() {
        return bytesSent;
    }

    public long messagesReceived() {
        return messagesReceived;
    }

    public long bytesReceived() {
        return bytesReceived;
    }
}
