package io.ofinet.fabric.ofi;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What this process holds natively through the binding, for leak checks: libfabric objects opened
 * and not yet closed (fabrics, domains, endpoints, completion queues, address vectors, memory
 * registrations), and bytes allocated from the C heap and not yet freed. Counting happens on the
 * control path only: opening, registering and allocating; the data path does none of them.
 */
public final class NativeUsage {
    private static final AtomicInteger OBJECTS = new AtomicInteger();
    private static final ConcurrentHashMap<Long, Long> ALLOCATIONS = new ConcurrentHashMap<>();

    private NativeUsage() {
    }

    /** libfabric objects open now. */
    public static int openObjects() {
        return OBJECTS.get();
    }

    /** Bytes allocated through {@link NativeMemory#allocate} and not yet freed. */
    public static long allocatedBytes() {
        long sum = 0;
        for (long size : ALLOCATIONS.values()) {
            sum += size;
        }
        return sum;
    }

    static void opened() {
        OBJECTS.incrementAndGet();
    }

    static void closed() {
        OBJECTS.decrementAndGet();
    }

    static void allocated(long address, long size) {
        ALLOCATIONS.put(address, size);
    }

    static void freed(long address) {
        ALLOCATIONS.remove(address);
    }
}
