package io.ofinet.fabric.ofi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this process holds natively through the binding, for leak checks: libfabric objects opened
 * and not yet closed (fabrics, domains, endpoints, completion queues, address vectors, memory
 * registrations), among them the memory registrations alone, address vector entries, and bytes
 * allocated from the C heap and not yet freed (with the totals allocated and freed). Counting
 * happens on the setup path only: opening, registering, inserting and allocating; the data path
 * does none of them.
 */
public final class NativeUsage {
    private static final AtomicInteger OBJECTS = new AtomicInteger();
    private static final ConcurrentHashMap<Long, Long> ALLOCATIONS = new ConcurrentHashMap<>();
    private static final AtomicInteger REGISTRATIONS = new AtomicInteger();
    private static final AtomicInteger AV_ENTRIES = new AtomicInteger();
    private static final AtomicLong ALLOCATED_TOTAL = new AtomicLong();
    private static final AtomicLong FREED_TOTAL = new AtomicLong();

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

    /** Memory registrations open now (also counted in {@link #openObjects}). */
    public static int registrations() {
        return REGISTRATIONS.get();
    }

    /** Address vector entries inserted and not removed, in address vectors still open. */
    public static int addressEntries() {
        return AV_ENTRIES.get();
    }

    /** Bytes ever allocated through {@link NativeMemory#allocate}. */
    public static long allocatedTotal() {
        return ALLOCATED_TOTAL.get();
    }

    /** Bytes ever freed through {@link NativeMemory#free}. */
    public static long freedTotal() {
        return FREED_TOTAL.get();
    }

    /** The figures by name, as the plugin's statistics show them. */
    public static Map<String, Long> asMap() {
        Map<String, Long> map = new LinkedHashMap<>();
        map.put("nativeOpenObjects", (long) openObjects());
        map.put("nativeRegistrations", (long) registrations());
        map.put("nativeAddressEntries", (long) addressEntries());
        map.put("nativeBytes", allocatedBytes());
        map.put("nativeBytesAllocated", allocatedTotal());
        map.put("nativeBytesFreed", freedTotal());
        return map;
    }

    static void registered() {
        REGISTRATIONS.incrementAndGet();
    }

    static void deregistered() {
        REGISTRATIONS.decrementAndGet();
    }

    static void addressesInserted(int count) {
        AV_ENTRIES.addAndGet(count);
    }

    static void opened() {
        OBJECTS.incrementAndGet();
    }

    static void closed() {
        OBJECTS.decrementAndGet();
    }

    static void allocated(long address, long size) {
        ALLOCATIONS.put(address, size);
        ALLOCATED_TOTAL.addAndGet(size);
    }

    static void freed(long address) {
        Long size = ALLOCATIONS.remove(address);
        if (size != null) {
            FREED_TOTAL.addAndGet(size);
        }
    }
}
