package io.ofinet.rdma.sched;

/**
 * A message's stripes: which data rail carries which byte range. Preallocated and refilled by
 * {@link RailScheduler#schedule}, so that scheduling allocates nothing.
 */
public final class Schedule {
    private final int[] rails;
    private final long[] offsets;
    private final long[] lengths;
    private int count;

    /** A schedule able to hold one stripe per rail. */
    public Schedule(int maxRails) {
        rails = new int[maxRails];
        offsets = new long[maxRails];
        lengths = new long[maxRails];
    }

    /** Number of stripes, at least 1. */
    public int stripes() {
        return count;
    }

    /** The data rail of stripe {@code i}. */
    public int rail(int i) {
        check(i);
        return rails[i];
    }

    /** Offset of stripe {@code i} in the message, in bytes. */
    public long offset(int i) {
        check(i);
        return offsets[i];
    }

    /** Length of stripe {@code i} in bytes. */
    public long length(int i) {
        check(i);
        return lengths[i];
    }

    void clear() {
        count = 0;
    }

    void add(int rail, long offset, long length) {
        rails[count] = rail;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
    }

    private void check(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("stripe " + i + " of " + count);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Schedule[");
        for (int i = 0; i < count; i++) {
            sb.append(i == 0 ? "" : ", ").append("rail ").append(rails[i]).append(": ")
                    .append(offsets[i]).append('+').append(lengths[i]);
        }
        return sb.append(']').toString();
    }
}
