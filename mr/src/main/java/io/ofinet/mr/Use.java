package io.ofinet.mr;

import io.ofinet.fabric.Fi;

/**
 * What a buffer is registered for: which rails use it, and the access that use needs.
 *
 * <p>libfabric's access bits name roles: {@code FI_WRITE} a local source of RMA writes, {@code
 * FI_READ} a local destination of RMA reads, {@code FI_REMOTE_WRITE}/{@code FI_REMOTE_READ} a
 * target of the peer's writes or reads.
 */
public enum Use {
    /**
     * A buffer the application registers ({@code regMr}): written into by peers on data rails,
     * read back by the flush through the endpoint's own address (hence REMOTE_READ), and the
     * source or destination of sends; present on control rails too, where small messages may go.
     */
    USER_BUFFER(true, true, Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE),
    /** The mailbox: peers RDMA-write announcements into it; outgoing ones are written from it. */
    CONTROL_MAILBOX(false, true, Fi.SEND | Fi.RECV | Fi.WRITE | Fi.REMOTE_WRITE),
    /** Freelist blocks used on data rails (eager receive buffers, outgoing small messages). */
    DATA_BUFFERS(true, false, Fi.SEND | Fi.RECV | Fi.WRITE | Fi.REMOTE_WRITE),
    /** Freelist blocks used on control rails (posted control receives, handshake messages). */
    CONTROL_BUFFERS(false, true, Fi.SEND | Fi.RECV | Fi.WRITE | Fi.REMOTE_WRITE),
    /** The endpoint's flush buffer: the destination of the flush's RDMA reads on data rails. */
    FLUSH_BUFFER(true, false, Fi.READ | Fi.RECV);

    private final boolean data;
    private final boolean control;
    private final long access;

    Use(boolean data, boolean control, long access) {
        this.data = data;
        this.control = control;
        this.access = access;
    }

    /** Whether the buffer is used on rails of this kind. */
    public boolean on(RailKind kind) {
        return kind == RailKind.DATA ? data : control;
    }

    /** The access bits registrations for this use get. */
    public long access() {
        return access;
    }
}
