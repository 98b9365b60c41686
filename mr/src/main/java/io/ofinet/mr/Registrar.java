package io.ofinet.mr;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.Parameters;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Registers buffers for the rails of protocol endpoints, one registrar per device. User buffers
 * go through the registration cache unless it is switched off: one cache for the device's domains
 * in domain scope, one per endpoint in endpoint scope (a registration bound to one endpoint cannot
 * serve another). Past the cache's bounds on entries or bytes, or when a buffer's pages overlap a
 * cached entry without lying inside it, registrations bypass the cache. Internal buffers (mailboxes,
 * freelist blocks, flush buffers) are registered directly. Thread-safe: registration comes from any
 * thread.
 */
public final class Registrar {
    /** Page size of cache entries; registrations cover whole pages of this size. */
    public static final long PAGE_SIZE = 4096;

    private final boolean cacheEnabled;
    private final long maxEntries;
    private final long maxBytes;
    private final long pageSize;
    private final RegistrationCache<RegistrationSet> domainCache;
    private final Map<Rails, RegistrationCache<RegistrationSet>> endpointCaches = new IdentityHashMap<>();
    /** Every registration set alive, with the rails it was made for: what closing must release. */
    private final Map<RegistrationSet, Rails> live = new IdentityHashMap<>();

    /** A registrar with the device's cache settings. */
    public Registrar(DeviceParameters parameters) {
        this(!parameters.mrCacheDisabled(), parameters.get(Parameters.MR_CACHE_MAX_ENTRIES),
                parameters.get(Parameters.MR_CACHE_MAX_BYTES), PAGE_SIZE);
    }

    public Registrar(boolean cacheEnabled, long maxEntries, long maxBytes, long pageSize) {
        this.cacheEnabled = cacheEnabled;
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.pageSize = pageSize;
        this.domainCache = new RegistrationCache<>(pageSize);
    }

    /**
     * Whether {@code [address, address + length)} is a range of user-space addresses: it does not
     * start above 2^63 nor wrap past it ({@code length} at least 0).
     */
    public static boolean userRange(long address, long length) {
        return address >= 0 && length <= Long.MAX_VALUE - address;
    }

    /**
     * Registers {@code [address, address + length)} for {@code use} on the rails of one endpoint.
     *
     * @throws MrException naming the rail and the call that failed; nothing stays registered
     */
    public synchronized MrHandle register(Rails rails, long address, long length, Use use) throws MrException {
        if (address == 0) {
            throw new IllegalArgumentException("cannot register address 0");
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        if (!userRange(address, length)) {
            throw new IllegalArgumentException("[0x" + Long.toHexString(address) + ", +" + length
                    + ") is not a range of user-space addresses");
        }
        if (use != Use.USER_BUFFER || !cacheEnabled) {
            return new MrHandle(this, rails, track(RegistrationSet.register(rails, address, length, use), rails),
                    address, length, false);
        }
        RegistrationCache<RegistrationSet> cache = cacheFor(rails);
        RegistrationCache.Entry<RegistrationSet> hit = cache.lookup(address, length);
        if (hit != null) {
            return new MrHandle(this, rails, hit.value(), address, length, true);
        }
        long start = cache.pageStart(address);
        long end = cache.pageEnd(address, length);
        if (cachedEntries() >= maxEntries || cachedBytes() + (end - start) > maxBytes
                || cache.overlaps(address, length)) {
            return new MrHandle(this, rails, track(RegistrationSet.register(rails, address, length, use), rails),
                    address, length, false);
        }
        RegistrationSet set = track(RegistrationSet.register(rails, start, end - start, use), rails);
        cache.insert(address, length, set);
        return new MrHandle(this, rails, set, address, length, true);
    }

    private RegistrationSet track(RegistrationSet set, Rails rails) {
        live.put(set, rails);
        return set;
    }

    private RegistrationCache<RegistrationSet> cacheFor(Rails rails) {
        return rails.anyEndpointScope()
                ? endpointCaches.computeIfAbsent(rails, r -> new RegistrationCache<>(pageSize)) : domainCache;
    }

    synchronized void release(MrHandle handle) throws MrException {
        if (!live.containsKey(handle.set())) {
            return; // released already, by closeAll at endpoint or device close
        }
        if (!handle.cached()) {
            deregister(handle.set());
            return;
        }
        RegistrationCache<RegistrationSet> cache = cacheFor(handle.rails());
        switch (cache.remove(handle.address(), handle.length())) {
            case DEREGISTER:
                deregister(handle.set());
                break;
            case STILL_REFERENCED:
                break;
            default:
                throw new IllegalStateException("cached registration of 0x" + Long.toHexString(handle.address())
                        + " is missing from the cache");
        }
    }

    /**
     * Closes a live set. One whose close fails stays live, with what did not close, and is tried
     * again when its endpoint or device closes ({@link #closeAll}).
     */
    private void deregister(RegistrationSet set) throws MrException {
        set.close();
        live.remove(set);
    }

    /** Live cached registrations (all caches): what {@code mrCacheMaxEntries} bounds, for the device. */
    public synchronized int cachedEntries() {
        int entries = domainCache.size();
        for (RegistrationCache<RegistrationSet> cache : endpointCaches.values()) {
            entries += cache.size();
        }
        return entries;
    }

    /** Bytes of the cached registrations (all caches): what {@code mrCacheMaxBytes} bounds. */
    private long cachedBytes() {
        long bytes = domainCache.bytes();
        for (RegistrationCache<RegistrationSet> cache : endpointCaches.values()) {
            bytes += cache.bytes();
        }
        return bytes;
    }

    /**
     * Deregisters every registration still alive that was made for {@code rails} (or, with null,
     * for any rails): what the application did not deregister before closing. Handles released
     * afterwards are ignored.
     *
     * @return how many registrations were released
     */
    public synchronized int closeAll(Rails rails) throws MrException {
        MrException failure = null;
        int released = 0;
        for (Map.Entry<RegistrationSet, Rails> e : new java.util.ArrayList<>(live.entrySet())) {
            if (rails == null || e.getValue() == rails) {
                released++;
                try {
                    deregister(e.getKey());
                } catch (MrException ex) {
                    if (failure == null) {
                        failure = ex;
                    } else {
                        failure.addSuppressed(ex);
                    }
                }
            }
        }
        if (rails == null) {
            domainCache.clear();
            endpointCaches.clear();
        } else {
            endpointCaches.remove(rails);
        }
        if (failure != null) {
            throw failure;
        }
        return released;
    }
}
