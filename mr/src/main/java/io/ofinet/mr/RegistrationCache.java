package io.ofinet.mr;

import java.util.Map;
import java.util.TreeMap;

/**
 * Page-granular registrations shared by buffers on the same pages, as NCCL expects from a plugin
 * that reports {@code regIsGlobal}. An entry covers whole pages; a lookup hits when the requested
 * range lies inside an entry's pages, and takes a reference. Removing drops a reference and says
 * "deregister" exactly when the last one goes: an unreferenced entry is never kept, since the
 * application may free the memory behind it. Not thread-safe; the {@link Registrar} locks.
 *
 * @param <V> what an entry holds (the registrations)
 */
public final class RegistrationCache<V> {
    /** What {@link #remove} found. */
    public enum Removal {
        /** Other references remain; nothing to deregister. */
        STILL_REFERENCED,
        /** That was the last reference: the entry is gone, deregister its value. */
        DEREGISTER,
        /** No entry covers the range. */
        NOT_FOUND
    }

    /** An entry: whole pages {@code [start, end)}, its value and its references. */
    public static final class Entry<V> {
        private final long start;
        private final long end;
        private final V value;
        private int references = 1;

        Entry(long start, long end, V value) {
            this.start = start;
            this.end = end;
            this.value = value;
        }

        public long start() {
            return start;
        }

        public long end() {
            return end;
        }

        public V value() {
            return value;
        }

        public int references() {
            return references;
        }
    }

    private final long pageSize;
    private final TreeMap<Long, Entry<V>> entries = new TreeMap<>();
    private long bytes;

    /** @param pageSize a power of two */
    public RegistrationCache(long pageSize) {
        if (pageSize <= 0 || Long.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two: " + pageSize);
        }
        this.pageSize = pageSize;
    }

    /** The first byte of the page holding {@code address}. */
    public long pageStart(long address) {
        return address & -pageSize;
    }

    /** The end of the last page holding {@code [address, address + length)}; a 0-byte range holds one page. */
    public long pageEnd(long address, long length) {
        return pageStart(address + Math.max(length, 1) - 1) + pageSize;
    }

    /** The entry covering the range, with one more reference, or null. */
    public Entry<V> lookup(long address, long length) {
        Entry<V> e = covering(address, length);
        if (e != null) {
            e.references++;
        }
        return e;
    }

    private Entry<V> covering(long address, long length) {
        long start = pageStart(address);
        long end = pageEnd(address, length);
        Map.Entry<Long, Entry<V>> floor = entries.floorEntry(start);
        if (floor == null) {
            return null;
        }
        Entry<V> e = floor.getValue();
        return end <= e.end ? e : null;
    }

    /**
     * Adds an entry for the pages of the range, with one reference.
     *
     * @throws IllegalStateException when an entry already covers the range, or the pages overlap one
     */
    public Entry<V> insert(long address, long length, V value) {
        long start = pageStart(address);
        long end = pageEnd(address, length);
        if (covering(address, length) != null) {
            throw new IllegalStateException("pages [" + start + ", " + end + ") are already cached");
        }
        Map.Entry<Long, Entry<V>> floor = entries.floorEntry(end - 1);
        if (floor != null && floor.getValue().end > start) {
            throw new IllegalStateException("pages [" + start + ", " + end + ") overlap the cached ["
                    + floor.getValue().start + ", " + floor.getValue().end + ")");
        }
        Entry<V> e = new Entry<>(start, end, value);
        entries.put(start, e);
        bytes += end - start;
        return e;
    }

    /** Drops one reference of the entry covering the range. */
    public Removal remove(long address, long length) {
        Entry<V> e = covering(address, length);
        if (e == null) {
            return Removal.NOT_FOUND;
        }
        if (--e.references > 0) {
            return Removal.STILL_REFERENCED;
        }
        entries.remove(e.start);
        bytes -= e.end - e.start;
        return Removal.DEREGISTER;
    }

    /** Whether any page of the range belongs to an entry. */
    public boolean overlaps(long address, long length) {
        long start = pageStart(address);
        long end = pageEnd(address, length);
        Map.Entry<Long, Entry<V>> floor = entries.floorEntry(end - 1);
        return floor != null && floor.getValue().end > start;
    }

    /** Drops every entry, when their registrations were closed together. */
    public void clear() {
        entries.clear();
        bytes = 0;
    }

    /** Live entries. */
    public int size() {
        return entries.size();
    }

    /** Bytes the live entries cover. */
    public long bytes() {
        return bytes;
    }
}
