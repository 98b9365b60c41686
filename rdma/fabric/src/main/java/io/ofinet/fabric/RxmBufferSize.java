package io.ofinet.fabric;

/**
 * The size of {@code ofi_rxm}'s buffers: those it posts for arriving messages
 * ({@link RxmPostedBuffers}) and those of its send pool, which it makes 1,024 at a time when an
 * endpoint first sends. Each holds a message's header, and a whole message of up to its size:
 * over {@code tcp}, with direct sends and dynamic receive buffers (rxm's defaults there), a longer
 * message is sent from and read into the application's own buffer, so the size bounds nothing
 * else. rxm's default is 16 KiB: the send pool is then 17 MB, allocated and touched inside a
 * rank's first {@code isend} (75–136 ms on a busy 2-core machine), and each posted buffer 16 KiB.
 * Over {@code verbs} the size is also rxm's eager limit, so the binding sets {@link #VARIABLE}
 * only on a machine without RDMA devices, and only where rxm places messages directly
 * ({@code RxmTcpDefaults}; docs/FABRIC.md, "`tcp;ofi_rxm`: the buffers it allocates").
 */
public final class RxmBufferSize {
    /** The variable rxm reads. */
    public static final String VARIABLE = "FI_OFI_RXM_BUFFER_SIZE";
    /** What the binding sets over tcp when the environment does not: 1 KiB. */
    public static final int DEFAULT = 1024;
    /** rxm's own, where the binding leaves it: 16 KiB. */
    public static final int RXM_DEFAULT = 16384;

    private RxmBufferSize() {
    }
}
