package io.ofinet.rdma.freelist;

import io.ofinet.rdma.error.RdmaException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A bounded pool of entries made ahead of use, so that the data path takes and returns them
 * without allocating. It starts with {@code initial} entries and grows by {@code growth} up to
 * {@code max}; past that, {@link #acquire} returns null ("no entry, retry later"). Entries may be
 * backed by native memory: each growth allocates one block of entries (aligned), registered once
 * through a {@link BlockRegistrar}, and every entry learns its address and its block's handle.
 * Not thread-safe: one freelist serves one endpoint's data path.
 *
 * @param <E> the entry type
 */
public final class Freelist<E> implements AutoCloseable {

    /** Makes the entry at {@code address} (0 without native memory) of a block. */
    @FunctionalInterface
    public interface Factory<E> {
        E create(Block block, long address);
    }

    /** Native memory for blocks; an interface so that tests need no native memory. */
    public interface BlockMemory {
        long allocate(long bytes);

        void free(long address);
    }

    /** Registers blocks; what {@link #register} returns is the handle entries carry. */
    public interface BlockRegistrar {
        Object register(long address, long bytes) throws RdmaException;

        void deregister(Object handle) throws RdmaException;
    }

    /** One growth's worth of entries. */
    public static final class Block {
        private final long base;
        private final long address;
        private final long bytes;
        private Object handle;

        Block(long base, long address, long bytes) {
            this.base = base;
            this.address = address;
            this.bytes = bytes;
        }

        /** The first entry's address (aligned). */
        public long address() {
            return address;
        }

        public long bytes() {
            return bytes;
        }

        /** The registration of the block, or null when the freelist registers nothing. */
        public Object handle() {
            return handle;
        }
    }

    private final String name;
    private final long entrySize;
    private final long alignment;
    private final int growth;
    private final int max;
    private final Factory<E> factory;
    private final java.util.function.Consumer<E> init;
    private final java.util.function.Consumer<E> fini;
    private final BlockMemory memory;
    private final BlockRegistrar registrar;
    private final List<Block> blocks = new ArrayList<>();
    private final List<E> all = new ArrayList<>();
    private final Object[] free;
    private int freeCount;
    private boolean closed;

    private Freelist(Builder<E> b) throws RdmaException {
        this.name = b.name;
        this.entrySize = b.entrySize;
        this.alignment = b.alignment;
        this.growth = b.growth;
        this.max = b.max;
        this.factory = b.factory;
        this.init = b.init;
        this.fini = b.fini;
        this.memory = b.memory;
        this.registrar = b.registrar;
        this.free = new Object[b.max];
        if (b.initial > 0) {
            grow(Math.min(b.initial, b.max));
        }
    }

    public static <E> Builder<E> builder(String name, Factory<E> factory) {
        return new Builder<>(name, factory);
    }

    /** Settings of a freelist. */
    public static final class Builder<E> {
        private final String name;
        private final Factory<E> factory;
        private long entrySize;
        private long alignment = 64;
        private int initial = 8;
        private int growth = 8;
        private int max = 8;
        private java.util.function.Consumer<E> init = e -> { };
        private java.util.function.Consumer<E> fini = e -> { };
        private BlockMemory memory;
        private BlockRegistrar registrar;

        Builder(String name, Factory<E> factory) {
            this.name = Objects.requireNonNull(name);
            this.factory = Objects.requireNonNull(factory);
        }

        /** Entries made at once, then made {@code step} at a time up to {@code limit}. */
        public Builder<E> sizes(int first, int step, int limit) {
            if (first < 0 || step < 1 || limit < 1 || first > limit) {
                throw new IllegalArgumentException("bad freelist sizes " + first + "/" + step + "/" + limit);
            }
            this.initial = first;
            this.growth = step;
            this.max = limit;
            return this;
        }

        /** Hooks run once when an entry is made and once when the freelist closes. */
        public Builder<E> hooks(java.util.function.Consumer<E> onCreate, java.util.function.Consumer<E> onClose) {
            this.init = onCreate;
            this.fini = onClose;
            return this;
        }

        /** Entries of {@code bytes} each in native blocks, at a multiple of {@code align}. */
        public Builder<E> nativeEntries(long bytes, long align, BlockMemory blockMemory) {
            if (bytes <= 0 || align <= 0 || Long.bitCount(align) != 1) {
                throw new IllegalArgumentException("entry size " + bytes + ", alignment " + align);
            }
            this.entrySize = (bytes + align - 1) & -align;
            this.alignment = align;
            this.memory = blockMemory;
            return this;
        }

        /** Registers every block once, through the owning endpoint's registration context. */
        public Builder<E> registered(BlockRegistrar blockRegistrar) {
            this.registrar = blockRegistrar;
            return this;
        }

        public Freelist<E> build() throws RdmaException {
            if (registrar != null && memory == null) {
                throw new IllegalStateException("a registered freelist needs native entries");
            }
            return new Freelist<>(this);
        }
    }

    private void grow(int count) throws RdmaException {
        Block block;
        if (memory != null) {
            long bytes = entrySize * count;
            long base = memory.allocate(bytes + alignment);
            long aligned = (base + alignment - 1) & -alignment;
            block = new Block(base, aligned, bytes);
            if (registrar != null) {
                try {
                    block.handle = registrar.register(aligned, bytes);
                } catch (RdmaException | RuntimeException e) {
                    memory.free(base);
                    throw e;
                }
            }
        } else {
            block = new Block(0, 0, 0);
        }
        blocks.add(block);
        for (int i = 0; i < count; i++) {
            E entry = factory.create(block, memory == null ? 0 : block.address + i * entrySize);
            init.accept(entry);
            all.add(entry);
            free[freeCount++] = entry;
        }
    }

    /** An entry, or null when all {@code max} are in use ("retry later"). */
    @SuppressWarnings("unchecked")
    public E acquire() throws RdmaException {
        if (closed) {
            throw new IllegalStateException("freelist " + name + " is closed");
        }
        if (freeCount == 0) {
            int room = max - all.size();
            if (room == 0) {
                return null;
            }
            grow(Math.min(growth, room));
        }
        E entry = (E) free[--freeCount];
        free[freeCount] = null;
        return entry;
    }

    /** Returns an entry for reuse. */
    public void release(E entry) {
        if (freeCount == free.length) {
            throw new IllegalStateException("freelist " + name + ": more entries released than acquired");
        }
        free[freeCount++] = entry;
    }

    /** Entries made so far. */
    public int allocated() {
        return all.size();
    }

    /** Entries ready to be acquired without growing. */
    public int available() {
        return freeCount;
    }

    public int max() {
        return max;
    }

    public long entrySize() {
        return entrySize;
    }

    /** Runs the close hook on every entry, then deregisters and frees the blocks. Twice is harmless. */
    @Override
    public void close() throws RdmaException {
        try {
            deregister();
        } finally {
            free();
        }
    }

    /**
     * Deregisters every block, keeping its memory: a provider may still write into a buffer that
     * was posted to an endpoint until that endpoint is closed, so an endpoint's pools deregister
     * before it closes and free after ({@link #free}).
     */
    public void deregister() throws RdmaException {
        if (closed) {
            return;
        }
        closed = true;
        RdmaException failure = null;
        for (E entry : all) {
            fini.accept(entry);
        }
        for (int i = blocks.size() - 1; i >= 0; i--) {
            Block block = blocks.get(i);
            try {
                if (block.handle != null) {
                    registrar.deregister(block.handle);
                }
            } catch (RdmaException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Frees the blocks' memory, once they are deregistered; freeing twice is harmless. */
    public void free() {
        if (memory != null) {
            for (int i = blocks.size() - 1; i >= 0; i--) {
                memory.free(blocks.get(i).base);
            }
        }
        blocks.clear();
    }
}
