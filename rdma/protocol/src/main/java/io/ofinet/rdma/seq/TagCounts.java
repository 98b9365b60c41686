package io.ofinet.rdma.seq;

import io.ofinet.rdma.wire.Limits;

/**
 * A count per tag, for the matching rule (docs/PROTOCOL.md, "Matching by tag"): the k-th send
 * with a tag fills the k-th receive buffer with that tag, so each side counts its sends or buffers
 * per tag. An open-addressed table of int keys: it allocates only when a tag it has not seen
 * makes it more than half full (it then doubles), never per call. A tag stays once counted, so a
 * communicator holds 9 to 36 bytes per tag it ever used (NCCL uses one tag per remote rank, or 0),
 * and a caller that gives every message a new tag makes the table grow without end and every
 * lookup a cache miss: it is warned once, when the table passes {@link #MANY} tags. Not
 * thread-safe.
 */
public final class TagCounts {
    private static final System.Logger LOG = System.getLogger(TagCounts.class.getName());
    /** The count of tags past which a table warns that its caller's tags look unbounded. */
    static final int MANY = 1 << 16;

    private int[] keys;
    private int[] counts;
    private boolean[] used;
    private int size;

    public TagCounts() {
        this(16);
    }

    /** A table with room for {@code capacity} / 2 tags before it first grows ({@code capacity} a power of two). */
    TagCounts(int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two of at least 2");
        }
        keys = new int[capacity];
        counts = new int[capacity];
        used = new boolean[capacity];
    }

    /** The count of {@code tag}: 0 for a tag never counted. */
    public int get(int tag) {
        int slot = find(tag);
        return used[slot] ? counts[slot] : 0;
    }

    /** Adds one to the count of {@code tag}; returns the count before. */
    public int next(int tag) {
        int slot = slotFor(tag);
        return counts[slot]++;
    }

    /** Tags counted so far. */
    int tags() {
        return size;
    }

    /**
     * Whether {@code ordinal} (as on the wire, modulo 2^16) is behind {@code count}, a tag's count
     * on this side: that send or buffer came already. Within half the ordinals' space; far more
     * than can be in flight per tag.
     */
    public static boolean passed(int count, int ordinal) {
        int behind = (count - ordinal) & Limits.ORDINAL_MASK;
        return behind != 0 && behind <= Limits.ORDINAL_MASK / 2;
    }

    /** The slot of {@code tag}, taken for it (count 0) when it had none. */
    private int slotFor(int tag) {
        int slot = find(tag);
        if (used[slot]) {
            return slot;
        }
        if (2 * (size + 1) > keys.length) {
            grow();
            slot = find(tag);
        }
        used[slot] = true;
        keys[slot] = tag;
        counts[slot] = 0;
        size++;
        return slot;
    }

    /** The slot holding {@code tag}, or the free slot where it would go. */
    private int find(int tag) {
        int mask = keys.length - 1;
        int slot = mix(tag) & mask;
        while (used[slot] && keys[slot] != tag) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private void grow() {
        int[] oldKeys = keys;
        int[] oldCounts = counts;
        boolean[] oldUsed = used;
        if (size >= MANY && size < 2 * MANY) {
            LOG.log(System.Logger.Level.WARNING, "a communicator has used {0} different tags: ofinet counts the"
                    + " messages of each tag for as long as the communicator lives (docs/PROTOCOL.md, \"Matching by"
                    + " tag\"), so a new tag per message grows its memory without end and slows every message;"
                    + " reuse a bounded set of tags", size);
        }
        keys = new int[oldKeys.length * 2];
        counts = new int[keys.length];
        used = new boolean[keys.length];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                int slot = find(oldKeys[i]);
                used[slot] = true;
                keys[slot] = oldKeys[i];
                counts[slot] = oldCounts[i];
            }
        }
    }

    /** Spreads tags that differ only in their high bits (a murmur3 finalizer step). */
    private static int mix(int tag) {
        int h = tag * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
