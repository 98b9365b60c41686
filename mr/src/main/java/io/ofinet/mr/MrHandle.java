package io.ofinet.mr;

/**
 * A registered buffer, as the protocol uses it: for rail R of kind K it gives the descriptor to
 * post with, the key a peer names it by and the remote address a peer writes to, always from the
 * registration of that rail and kind. Closing it deregisters, or drops its reference to a cached
 * registration. Closing twice is harmless.
 */
public final class MrHandle implements AutoCloseable {
    private final Registrar registrar;
    private final Rails rails;
    private final RegistrationSet set;
    private final long address;
    private final long length;
    private final boolean cached;
    private boolean closed;

    MrHandle(Registrar registrar, Rails rails, RegistrationSet set, long address, long length, boolean cached) {
        this.registrar = registrar;
        this.rails = rails;
        this.set = set;
        this.address = address;
        this.length = length;
        this.cached = cached;
    }

    public long address() {
        return address;
    }

    public long length() {
        return length;
    }

    /**
     * Whether {@code [address, address + size)} lies inside this buffer: an empty range always does,
     * a negative size never, and a range whose end wraps past the largest address does not.
     */
    public boolean covers(long address, long size) {
        return size == 0 || size > 0 && address >= this.address && address - this.address <= length - size;
    }

    /** Whether it shares a cached, page-rounded registration. */
    public boolean cached() {
        return cached;
    }

    Rails rails() {
        return rails;
    }

    RegistrationSet set() {
        return set;
    }

    private Registration on(RailKind kind, int rail) {
        if (closed) {
            throw new IllegalStateException("the registration of 0x" + Long.toHexString(address) + " is closed");
        }
        return set.on(kind, rail);
    }

    /** The local descriptor for operations on {@code rail} of {@code kind}. */
    public long descriptor(RailKind kind, int rail) {
        return on(kind, rail).descriptor();
    }

    /** The key a peer uses for this buffer on {@code rail} of {@code kind}. */
    public long key(RailKind kind, int rail) {
        return on(kind, rail).key();
    }

    /**
     * The remote address a peer uses for byte {@code offset} of this buffer on {@code rail} of
     * {@code kind}: the virtual address under FI_MR_VIRT_ADDR, the offset from the start of the
     * registration (which may begin before the buffer, at its page) otherwise.
     */
    public long remoteAddress(RailKind kind, int rail, long offset) {
        if (offset < 0 || offset > length) {
            throw new IndexOutOfBoundsException("offset " + offset + " outside the " + length + "-byte buffer");
        }
        Registration r = on(kind, rail);
        return r.domain().info().virtualAddressing() ? address + offset : address - r.regionAddress() + offset;
    }

    @Override
    public void close() throws MrException {
        if (closed) {
            return;
        }
        closed = true;
        registrar.release(this);
    }
}
