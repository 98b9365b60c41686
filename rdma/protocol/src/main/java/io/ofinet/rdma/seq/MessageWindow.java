package io.ofinet.rdma.seq;

/**
 * Tracks messages by sequence number in a bounded window that wraps, as the C++ anchor's
 * message buffer does (10-bit sequence numbers, 256 in flight). Sequence numbers run modulo
 * 2^bits; the window starts at the oldest message not yet completed and holds at most
 * {@code window} messages. A number behind the window is completed; one past it is unavailable.
 * Not thread-safe: one window per communicator.
 *
 * @param <T> what is stored per message
 */
public final class MessageWindow<T> {
    /** What the window knows of a sequence number. */
    public enum Status {
        /** In the window, nothing stored yet. */
        NOT_STARTED,
        /** Stored, not completed. */
        IN_PROGRESS,
        /** Completed (in the window, or behind it). */
        COMPLETED,
        /** Past the window: the window is full up to it. */
        UNAVAILABLE
    }

    private final int bits;
    private final int mask;
    private final int window;
    private final Object[] items;
    private final Status[] states;
    private int start;

    /**
     * @param bits bits of a sequence number (at most 30)
     * @param window messages in flight at most; twice it must fit in the sequence space
     * @param first the first sequence number
     */
    public MessageWindow(int bits, int window, int first) {
        if (bits < 1 || bits > 30 || window < 1 || 2L * window > (1L << bits)) {
            throw new IllegalArgumentException("window " + window + " does not fit twice in " + bits + " bits");
        }
        this.bits = bits;
        this.mask = (1 << bits) - 1;
        this.window = window;
        this.items = new Object[window];
        this.states = new Status[window];
        java.util.Arrays.fill(states, Status.NOT_STARTED);
        this.start = first & mask;
    }

    public int bits() {
        return bits;
    }

    /** The oldest sequence number not completed. */
    public int start() {
        return start;
    }

    /** {@code seq} plus {@code n}, modulo the sequence space. */
    public int add(int seq, int n) {
        return (seq + n) & mask;
    }

    private int distance(int seq) {
        return (seq - start) & mask;
    }

    private int slot(int seq) {
        return (seq & mask) % window;
    }

    public Status status(int seq) {
        int d = distance(seq);
        if (d < window) {
            return states[slot(seq)];
        }
        return d >= (1 << bits) - window ? Status.COMPLETED : Status.UNAVAILABLE;
    }

    /**
     * Stores {@code item} for {@code seq}.
     *
     * @return {@link Status#IN_PROGRESS} when stored; otherwise the status that refused it
     *     (in progress or completed for a duplicate, unavailable past the window)
     */
    public Status insert(int seq, T item) {
        Status s = status(seq);
        if (s != Status.NOT_STARTED) {
            return s == Status.IN_PROGRESS ? Status.IN_PROGRESS : s == Status.COMPLETED ? Status.COMPLETED
                    : Status.UNAVAILABLE;
        }
        int i = slot(seq);
        items[i] = item;
        states[i] = Status.IN_PROGRESS;
        return Status.IN_PROGRESS;
    }

    /** Whether {@link #insert} would store an item for {@code seq}. */
    public boolean canInsert(int seq) {
        return status(seq) == Status.NOT_STARTED;
    }

    /** The item stored for an in-progress {@code seq}, or null. */
    @SuppressWarnings("unchecked")
    public T retrieve(int seq) {
        return status(seq) == Status.IN_PROGRESS ? (T) items[slot(seq)] : null;
    }

    /**
     * Completes an in-progress {@code seq}; the window moves past every completed message at its
     * start.
     *
     * @return false when {@code seq} was not in progress
     */
    public boolean complete(int seq) {
        if (status(seq) != Status.IN_PROGRESS) {
            return false;
        }
        int i = slot(seq);
        states[i] = Status.COMPLETED;
        items[i] = null;
        while (states[slot(start)] == Status.COMPLETED) {
            states[slot(start)] = Status.NOT_STARTED;
            start = add(start, 1);
        }
        return true;
    }
}
