package io.ofinet.fabric;

/**
 * How many receive buffers {@code ofi_rxm} posts for each endpoint's connections. Over {@code tcp}
 * rxm shares one receive context among an endpoint's connections and, unless {@link #VARIABLE} says
 * otherwise, posts 4,096 buffers of its buffer size (16 KiB) there when the endpoint is enabled:
 * 64 MiB zeroed in {@code fi_enable}, for each of a device's endpoints. A buffer holds a message's
 * header, and a whole message of up to their size ({@link RxmBufferSize}) that came before its receive; a message whose
 * receive is posted is read straight into the receive's own buffer. With fewer buffers, more such
 * early messages wait in the kernel's socket instead, which the sender's TCP flow control bounds.
 * rxm asks the same size of every core provider: {@code verbs}, without a shared receive context,
 * posts that many per connection (rxm's default there is 128), which is why a machine with an RDMA
 * device does not get it.
 *
 * <p>rxm reads the variable once, when libfabric first initialises its providers; so the binding
 * sets it to {@link #DEFAULT} in the process environment when it loads libfabric, on a machine
 * without RDMA devices, unless it is set ({@code RxmTcpDefaults}; docs/FABRIC.md, "`tcp;ofi_rxm`:
 * the buffers it allocates").
 */
public final class RxmPostedBuffers {
    /** The variable rxm reads: the receive queue size it asks of its core provider's endpoints. */
    public static final String VARIABLE = "FI_OFI_RXM_MSG_RX_SIZE";
    /** What the binding sets when the environment does not: a quarter of rxm's 4,096 over tcp. */
    public static final int DEFAULT = 1024;

    private RxmPostedBuffers() {
    }
}
