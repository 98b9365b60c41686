package io.ofinet.nccl;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The opaque values C holds for Java objects: {@code kind (8 bits) | generation (24) | index (32)}.
 * Never zero and never an object's address; a value of another kind, a stale one (its entry removed
 * or reused) or garbage finds nothing. Adding and removing take the table's lock; {@link #get} does
 * not (one acquire read of an array element), so NCCL's threads look up concurrently.
 */
final class HandleTable<T> {
    static final int KIND_SHIFT = 56;
    static final int GENERATION_SHIFT = 32;
    static final int GENERATION_MASK = 0xFF_FFFF;
    private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(Entry[].class);

    private record Entry(Object value, int generation) {
    }

    private final int kind;
    private volatile Entry[] entries = new Entry[16];
    private int[] free = new int[16];
    private int freeCount;
    private int used;
    private int live;
    private int nextGeneration = 1;

    /** A table whose handles carry {@code kind} (1..127) in their top byte. */
    HandleTable(int kind) {
        if (kind < 1 || kind > 127) {
            throw new IllegalArgumentException("kind " + kind);
        }
        this.kind = kind;
    }

    /** A new handle for {@code value}. */
    long add(T value) {
        return add(handle -> value);
    }

    /** A new handle for the value {@code make} builds from the handle. */
    synchronized long add(java.util.function.LongFunction<T> make) {
        int index;
        if (freeCount > 0) {
            index = free[--freeCount];
        } else {
            if (used == entries.length) {
                entries = Arrays.copyOf(entries, used * 2);
            }
            index = used++;
        }
        int generation = nextGeneration;
        nextGeneration = (nextGeneration & GENERATION_MASK) == GENERATION_MASK ? 1 : nextGeneration + 1;
        long handle = ((long) kind << KIND_SHIFT) | ((long) generation << GENERATION_SHIFT) | index;
        ENTRIES.setRelease(entries, index, new Entry(make.apply(handle), generation));
        live++;
        return handle;
    }

    /** The value of a live handle, or null. */
    @SuppressWarnings("unchecked")
    T get(long handle) {
        Entry e = entry(handle, entries);
        return e == null ? null : (T) e.value;
    }

    /** The value at the index a live handle of this table carries, whatever its generation; or null. */
    @SuppressWarnings("unchecked")
    T atIndex(int index) {
        Entry[] all = entries;
        if (index < 0 || index >= all.length) {
            return null;
        }
        Entry e = (Entry) ENTRIES.getAcquire(all, index);
        return e == null ? null : (T) e.value;
    }

    /** Removes a live handle's value and returns it; null when the handle is not live. */
    @SuppressWarnings("unchecked")
    synchronized T remove(long handle) {
        Entry e = entry(handle, entries);
        if (e == null) {
            return null;
        }
        int index = index(handle);
        ENTRIES.setRelease(entries, index, (Entry) null);
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = index;
        live--;
        return (T) e.value;
    }

    /** Whether {@code handle} has this table's kind (live or not). */
    boolean isKind(long handle) {
        return (handle >>> KIND_SHIFT) == kind;
    }

    /** Handles live now. */
    synchronized int live() {
        return live;
    }

    static int index(long handle) {
        return (int) handle;
    }

    private Entry entry(long handle, Entry[] all) {
        if (!isKind(handle)) {
            return null;
        }
        int index = index(handle);
        if (index < 0 || index >= all.length) {
            return null;
        }
        Entry e = (Entry) ENTRIES.getAcquire(all, index);
        int generation = (int) (handle >>> GENERATION_SHIFT) & GENERATION_MASK;
        return e != null && e.generation == generation ? e : null;
    }
}
