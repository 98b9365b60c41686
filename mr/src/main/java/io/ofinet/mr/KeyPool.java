package io.ofinet.mr;

import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Hands out the MR keys ofinet requests from a domain.
 *
 * <p>No provider in Debian's libfabric returns FI_MR_PROV_KEY, so the application chooses every
 * key, and a key already used in the domain fails the registration with {@code -FI_ENOKEY}. One
 * pool per domain hands out keys in rotation: the lowest free key after the one handed out last,
 * wrapping to 0 at the end of the key space. A returned key comes back only once the rotation has
 * gone round to it: a peer's write still on its way with the key of a buffer deregistered
 * meanwhile fails instead of landing in the buffer registered next (providers without
 * FI_MR_VIRT_ADDR, tcp;ofi_rxm among them, address by offset, so the old offset would fit the new
 * buffer). A key held while the rotation went round may be returned just ahead of it: one less
 * than half the key space ahead is held back, counted as returned, until the rotation has passed
 * it, so that it comes back a round later. Only when every other key is in use does a key held
 * back go early. The key
 * space is 2^(8 * min(configured key size, provider's {@code mr_key_size})) keys. Keys in use are
 * kept as coalesced ranges, so memory grows with the fragmentation of keys in use, and with the
 * keys held back, never with the size of the key space.
 *
 * <p>Thread-safe: registrations come from any thread.
 */
public final class KeyPool {
    private final long capacity;
    /** Keys in use as ranges: start -> end (exclusive); ranges never touch. */
    private final TreeMap<Long, Long> inUse = new TreeMap<>();
    private long inUseCount;
    /**
     * Keys returned within half the key space ahead of the rotation: still in {@link #inUse}, so
     * that the search passes them over, until the rotation has passed them.
     */
    private final NavigableSet<Long> heldBack = new TreeSet<>();
    /** Where the search for the next key starts. */
    private long next;

    /**
     * @param configuredKeySizeBytes the layout's {@code mrKeySize}, 1 to 8
     * @param providerKeySizeBytes the provider's {@code mr_key_size}, at least 1
     */
    public KeyPool(int configuredKeySizeBytes, int providerKeySizeBytes) {
        if (configuredKeySizeBytes < 1 || configuredKeySizeBytes > 8) {
            throw new IllegalArgumentException("configured key size must be 1..8 bytes: "
                    + configuredKeySizeBytes);
        }
        if (providerKeySizeBytes < 1) {
            throw new IllegalArgumentException("provider key size must be at least 1 byte: "
                    + providerKeySizeBytes);
        }
        int bits = 8 * Math.min(configuredKeySizeBytes, providerKeySizeBytes);
        // Keys are Java longs; 2^63 keys is beyond any provider's table.
        this.capacity = bits >= 63 ? Long.MAX_VALUE : 1L << bits;
    }

    /** Number of keys in the key space. */
    public long capacity() {
        return capacity;
    }

    /** Number of keys handed out and not yet returned. */
    public synchronized long inUse() {
        return inUseCount;
    }

    /**
     * The lowest free key after the one handed out last, else the lowest free key.
     *
     * @throws MrException when every key is in use
     */
    public synchronized long allocate() throws MrException {
        long key = lowestFreeFrom(next);
        if (key < 0) {
            key = lowestFreeFrom(0);
        }
        if (key < 0 && !heldBack.isEmpty()) {
            // Every other key is in use: of those held back, the first the rotation would pass goes.
            Long first = heldBack.ceiling(next);
            key = first != null ? first : heldBack.first();
            release(key);
        }
        if (key < 0) {
            throw new MrException("MR key pool exhausted: all " + capacity + " keys of the"
                    + " domain are in use (key size " + (Long.numberOfTrailingZeros(capacity) / 8)
                    + " bytes; raise mrKeySize if the provider allows, or deregister buffers)");
        }
        Long rightEnd = inUse.remove(key + 1);
        long end = rightEnd != null ? rightEnd : key + 1;
        Map.Entry<Long, Long> left = inUse.lowerEntry(key);
        inUse.put(left != null && left.getValue() == key ? left.getKey() : key, end);
        inUseCount++;
        long from = next;
        next = key + 1 < capacity ? key + 1 : 0;
        releasePassed(from, next);
        return key;
    }

    /** Releases the keys held back that the rotation passed going from {@code from} to {@code to}. */
    private void releasePassed(long from, long to) {
        if (heldBack.isEmpty()) {
            return;
        }
        if (from < to) {
            releaseAll(heldBack.subSet(from, to));
        } else {
            releaseAll(heldBack.tailSet(from));
            releaseAll(heldBack.headSet(to));
        }
    }

    private void releaseAll(SortedSet<Long> keys) {
        for (Long key : keys.toArray(new Long[0])) {
            release(key);
        }
    }

    /** Takes a key held back out of {@link #inUse}: free now. */
    private void release(long key) {
        heldBack.remove(key);
        removeFromRanges(key);
    }

    /** The lowest free key at or above {@code from}, or -1. */
    private long lowestFreeFrom(long from) {
        Map.Entry<Long, Long> range = inUse.floorEntry(from);
        // Ranges never touch, so the key that ends a range is free unless it ends the key space.
        long key = range != null && from < range.getValue() ? range.getValue() : from;
        return key < capacity ? key : -1;
    }

    /**
     * Returns a key to the pool.
     *
     * @throws IllegalArgumentException for a key outside the key space or not in use
     */
    public synchronized void free(long key) {
        if (key < 0 || key >= capacity) {
            throw new IllegalArgumentException("MR key " + key + " is outside the key space 0.."
                    + (capacity - 1));
        }
        Map.Entry<Long, Long> range = inUse.floorEntry(key);
        if (range == null || key >= range.getValue() || heldBack.contains(key)) {
            throw new IllegalArgumentException("MR key " + key + " is not in use (freed twice?)");
        }
        inUseCount--;
        // The rotation reaches a key less than half the key space ahead of it soon: held back
        // until it has passed, it comes back a whole round later.
        long ahead = key >= next ? key - next : capacity - next + key;
        if (ahead < capacity / 2) {
            heldBack.add(key);
            return;
        }
        removeFromRanges(key);
    }

    private void removeFromRanges(long key) {
        Map.Entry<Long, Long> range = inUse.floorEntry(key);
        long start = range.getKey();
        long end = range.getValue();
        inUse.remove(start);
        if (start < key) {
            inUse.put(start, key);
        }
        if (key + 1 < end) {
            inUse.put(key + 1, end);
        }
    }

    /** Number of ranges the keys in use and held back form; memory use is proportional to it. */
    synchronized int ranges() {
        return inUse.size();
    }

    /** Number of keys returned and held back until the rotation has passed them. */
    synchronized int heldBack() {
        return heldBack.size();
    }
}
