package io.ofinet.fabric;

/**
 * Completion entries read from a queue (FI_CQ_FORMAT_DATA), in preallocated arrays so that
 * reading allocates nothing. Entry {@code i} is valid for {@code i < count()} until the next read.
 */
public final class CompletionBatch {
    private final long[] context;
    private final long[] flags;
    private final long[] len;
    private final long[] buf;
    private final long[] data;
    private final long[] source;
    private int count;

    public CompletionBatch(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        context = new long[capacity];
        flags = new long[capacity];
        len = new long[capacity];
        buf = new long[capacity];
        data = new long[capacity];
        source = new long[capacity];
    }

    public int capacity() {
        return context.length;
    }

    /** Entries of the last read. */
    public int count() {
        return count;
    }

    /** The context the operation was posted with. */
    public long context(int i) {
        return context[check(i)];
    }

    /** Completion flags ({@link Fi#REMOTE_CQ_DATA}, {@link Fi#RECV}, ...). */
    public long flags(int i) {
        return flags[check(i)];
    }

    /** Bytes received, for receives; may be 0 for a remote write's completion. */
    public long len(int i) {
        return len[check(i)];
    }

    public long buf(int i) {
        return buf[check(i)];
    }

    /** Immediate data, valid when flags has {@link Fi#REMOTE_CQ_DATA}. */
    public long data(int i) {
        return data[check(i)];
    }

    /**
     * Where entry {@code i} came from: the sender's handle in the address vector of the endpoint
     * it arrived on, or {@link Fi#ADDR_NOTAVAIL} when the queue does not report sources or the
     * sender is not in that vector. Only as right as the provider makes it.
     */
    public long source(int i) {
        return source[check(i)];
    }

    /** Sets the count; for provider implementations. */
    public void setCount(int n) {
        if (n < 0 || n > capacity()) {
            throw new IllegalArgumentException("count " + n + " outside 0.." + capacity());
        }
        count = n;
    }

    /** Stores entry {@code i}; for provider implementations. */
    public void set(int i, long context, long flags, long len, long buf, long data) {
        this.context[i] = context;
        this.flags[i] = flags;
        this.len[i] = len;
        this.buf[i] = buf;
        this.data[i] = data;
        this.source[i] = Fi.ADDR_NOTAVAIL;
    }

    /** Stores entry {@code i}'s source, after {@link #set}; for provider implementations. */
    public void setSource(int i, long from) {
        this.source[i] = from;
    }

    private int check(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("entry " + i + " of " + count);
        }
        return i;
    }
}
