package io.ofinet.rdma.sched;

/**
 * Decides how a message is split over the data rails.
 *
 * <p>Small messages (below the small-message limit) go whole to one rail, chosen round-robin by
 * their own counter, so that a stream of tiny control-like messages spreads evenly without
 * disturbing the rotation of large ones. A larger message gets ceil(size / minimum stripe size)
 * stripes, at most one per rail, lowered to the largest divisor of the rail count so that
 * successive messages tile the rails evenly; each stripe is ceil(size / stripes) rounded up to
 * 128 bytes (the last takes the remainder), and the first rail advances by the number of stripes.
 * When that rounding covers the whole message before the last stripes (possible only with many
 * rails and a small minimum stripe, e.g. 15 rails and 25,024 bytes), the message takes fewer
 * stripes; the receiver learns the count from the immediate data, not from this rule.
 *
 * <p>One scheduler serves one communicator; it is not thread-safe, as the data path of one
 * communicator is driven by one thread at a time.
 */
public final class RailScheduler {
    /** Stripes start on this alignment, for the NIC's DMA engines. */
    public static final int STRIPE_ALIGNMENT = 128;

    private final int rails;
    private final long minStripeSizeBytes;
    private final long smallMessageLimitBytes;
    private final int[] largestDivisorAtMost;
    private long smallCounter;
    private long largeCounter;

    /**
     * @param rails number of data rails, at least 1
     * @param minStripeSizeBytes smallest stripe, a positive multiple of 128
     * @param smallMessageLimitBytes messages smaller than this go whole to one rail
     */
    public RailScheduler(int rails, long minStripeSizeBytes, long smallMessageLimitBytes) {
        if (rails < 1) {
            throw new IllegalArgumentException("rails must be at least 1: " + rails);
        }
        if (minStripeSizeBytes <= 0 || minStripeSizeBytes % STRIPE_ALIGNMENT != 0) {
            throw new IllegalArgumentException(
                    "minStripeSizeBytes must be a positive multiple of 128: " + minStripeSizeBytes);
        }
        if (smallMessageLimitBytes < 0) {
            throw new IllegalArgumentException("smallMessageLimitBytes < 0: " + smallMessageLimitBytes);
        }
        this.rails = rails;
        this.minStripeSizeBytes = minStripeSizeBytes;
        this.smallMessageLimitBytes = smallMessageLimitBytes;
        this.largestDivisorAtMost = new int[rails + 1];
        for (int n = 1; n <= rails; n++) {
            int d = n;
            while (rails % d != 0) {
                d--;
            }
            largestDivisorAtMost[n] = d;
        }
    }

    /** Number of data rails. */
    public int rails() {
        return rails;
    }

    /** Fills {@code out} with the stripes of a message of {@code sizeBytes}. */
    public void schedule(long sizeBytes, Schedule out) {
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("negative size: " + sizeBytes);
        }
        out.clear();
        if (sizeBytes < smallMessageLimitBytes) {
            out.add((int) (smallCounter++ % rails), 0, sizeBytes);
            return;
        }
        long wanted = Math.max(1, ceilDiv(sizeBytes, minStripeSizeBytes));
        int stripes = largestDivisorAtMost[(int) Math.min(wanted, rails)];
        long stripeBytes = roundUp(ceilDiv(sizeBytes, stripes), STRIPE_ALIGNMENT);
        int first = (int) (largeCounter % rails);
        largeCounter += stripes;
        long offset = 0;
        for (int i = 0; i < stripes && offset < sizeBytes; i++) {
            long length = i == stripes - 1 ? sizeBytes - offset : Math.min(stripeBytes, sizeBytes - offset);
            out.add((first + i) % rails, offset, length);
            offset += length;
        }
        if (out.stripes() == 0) {
            out.add(first, 0, 0);
        }
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static long roundUp(long value, long alignment) {
        return ceilDiv(value, alignment) * alignment;
    }
}
