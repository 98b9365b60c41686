package io.ofinet.nccl;

import io.ofinet.plugin.Handles;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One communicator's outstanding requests as C holds them: {@code 0x52 (8 bits) | the communicator's
 * table index (20) | the low 8 bits of its handle's generation | the slot's generation (16) | slot
 * (12)}. A request of a closed communicator whose index a new one took is refused unless the
 * table made a multiple of 256 handles between the two communicators and the slot's generations,
 * which start at random, match (1 in 65,536). A slot is taken when a request is posted and freed
 * when {@code test} reports it; the arrays grow to the most requests ever outstanding at once and then
 * stay, so posting and testing allocate nothing. Used by the one thread that drives the communicator.
 *
 * <p>A slot may hold a flush that could not be posted yet (NCCL reads a NULL flush request as "nothing
 * to wait for", so the door never returns one): its arguments wait in the slot and {@code test} posts it.
 */
final class RequestSlots {
    static final long KIND = 0x52;
    static final int SEND = 1;
    static final int RECV = 2;
    static final int FLUSH = 3;
    /** Outstanding at once, far above the plugin's own bounds (256 sends, 32 receives, 32 flushes). */
    private static final int MAX_SLOTS = 1 << 12;
    private static final int SLOT_BITS = 12;
    private static final int INDEX_BITS = 20;
    private static final int COMM_SHIFT = 36;
    private static final long COMM_MASK = -1L << (COMM_SHIFT - 8);

    private final long prefix;
    private Handles.Request[] requests = new Handles.Request[8];
    private int[] generations = new int[8];
    private byte[] types = new byte[8];
    /** A send's size; a receive's or flush's buffer count. */
    private long[] amounts = new long[8];
    private int[] free = new int[8];
    private int freeCount;
    private int used;
    private int outstanding;
    private final int firstGeneration = ThreadLocalRandom.current().nextInt(1 << 16);
    /** Flushes waiting to be posted: their buffers, by slot. */
    private long[][] flushAddresses = new long[8][];
    private long[][] flushSizes = new long[8][];
    private Handles.MrHandle[][] flushMrs = new Handles.MrHandle[8][];

    /** The requests of the communicator C holds as {@code commHandle} ({@link HandleTable}). */
    RequestSlots(long commHandle) {
        int commIndex = HandleTable.index(commHandle);
        if (commIndex < 0 || commIndex >= 1 << INDEX_BITS) {
            throw new IllegalArgumentException("communicator index " + commIndex + " does not fit a request handle");
        }
        long generation = commHandle >>> HandleTable.GENERATION_SHIFT & 0xFF;
        this.prefix = KIND << 56 | (long) commIndex << COMM_SHIFT | generation << (COMM_SHIFT - 8);
    }

    /** The communicator index a request handle names, or -1 when it is not a request handle. */
    static int commIndex(long handle) {
        return handle >>> 56 == KIND ? (int) (handle >>> COMM_SHIFT) & ((1 << INDEX_BITS) - 1) : -1;
    }

    /** Takes a slot for {@code request} (null: a flush waiting to be posted) and returns its handle. */
    long add(Handles.Request request, int type, long amount) throws DoorException {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == MAX_SLOTS) {
                throw new DoorException(3, "more than " + MAX_SLOTS + " requests outstanding on one communicator");
            }
            if (used == requests.length) {
                grow(used * 2);
            }
            slot = used++;
            generations[slot] = firstGeneration + slot;
        }
        int generation = ++generations[slot] & 0xFFFF;
        requests[slot] = request;
        types[slot] = (byte) type;
        amounts[slot] = amount;
        outstanding++;
        return prefix | (long) generation << SLOT_BITS | slot;
    }

    /** The slot of a live request handle of this communicator, or -1. */
    int slot(long handle) {
        if ((handle & COMM_MASK) != prefix) {
            return -1;
        }
        int slot = (int) handle & (MAX_SLOTS - 1);
        if (slot >= used || types[slot] == 0
                || (generations[slot] & 0xFFFF) != ((int) (handle >>> SLOT_BITS) & 0xFFFF)) {
            return -1;
        }
        return slot;
    }

    Handles.Request request(int slot) {
        return requests[slot];
    }

    int type(int slot) {
        return types[slot];
    }

    long amount(int slot) {
        return amounts[slot];
    }

    /** Keeps a flush's arguments in its slot until it can be posted. */
    void deferFlush(int slot, int n, long[] addresses, long[] sizes, Handles.MrHandle[] mrs) {
        if (flushAddresses[slot] == null) {
            flushAddresses[slot] = new long[addresses.length];
            flushSizes[slot] = new long[sizes.length];
            flushMrs[slot] = new Handles.MrHandle[mrs.length];
        }
        System.arraycopy(addresses, 0, flushAddresses[slot], 0, n);
        System.arraycopy(sizes, 0, flushSizes[slot], 0, n);
        System.arraycopy(mrs, 0, flushMrs[slot], 0, n);
    }

    long[] flushAddresses(int slot) {
        return flushAddresses[slot];
    }

    long[] flushSizes(int slot) {
        return flushSizes[slot];
    }

    Handles.MrHandle[] flushMrs(int slot) {
        return flushMrs[slot];
    }

    /** Whether a flush waiting to be posted uses {@code mr}. */
    boolean flushWaitsWith(Handles.MrHandle mr) {
        for (int slot = 0; slot < used; slot++) {
            if (waitingFlush(slot)) {
                for (int i = 0; i < amounts[slot]; i++) {
                    if (flushMrs[slot][i] == mr) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether slot {@code slot} holds a flush not posted yet. */
    private boolean waitingFlush(int slot) {
        return types[slot] == FLUSH && requests[slot] == null;
    }

    /** The communicator closes: its flushes waiting to be posted never will be. */
    void dropWaitingFlushes() {
        for (int slot = 0; slot < used; slot++) {
            if (waitingFlush(slot)) {
                remove(slot);
            }
        }
    }

    /** A deferred flush was posted: the slot now holds its request. */
    void posted(int slot, Handles.Request request) {
        requests[slot] = request;
    }

    /** Frees a slot: its handle is stale from now on. */
    void remove(int slot) {
        requests[slot] = null;
        types[slot] = 0;
        if (flushMrs[slot] != null) {
            Arrays.fill(flushMrs[slot], null);
        }
        free[freeCount++] = slot;
        outstanding--;
    }

    /** Requests posted and not yet reported. */
    int outstanding() {
        return outstanding;
    }

    private void grow(int capacity) {
        requests = Arrays.copyOf(requests, capacity);
        generations = Arrays.copyOf(generations, capacity);
        types = Arrays.copyOf(types, capacity);
        amounts = Arrays.copyOf(amounts, capacity);
        free = Arrays.copyOf(free, capacity);
        flushAddresses = Arrays.copyOf(flushAddresses, capacity);
        flushSizes = Arrays.copyOf(flushSizes, capacity);
        flushMrs = Arrays.copyOf(flushMrs, capacity);
    }
}
