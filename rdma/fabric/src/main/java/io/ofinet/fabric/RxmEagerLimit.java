package io.ofinet.fabric;

/**
 * {@code ofi_rxm}'s eager limit: the largest message it sends whole, which its {@code tcp} peer
 * then places straight into the posted receive. Above it rxm 1.17 sends a message in its own
 * rendezvous (the receiver reads it), which moves no faster than a write and which a close that
 * cuts it short leaves busy ({@code FI_EBUSY} at the domain's close). rxm reads the limit from
 * the environment each time it opens an endpoint, and refuses connections between endpoints
 * whose limits differ; its default is 16 KiB. The binding therefore sets {@link #VARIABLE} to
 * {@link #DEFAULT} in the process environment before it loads libfabric, unless it is set, so
 * that every ofinet process has the same limit, and messages of up to it stay whole.
 *
 * <p>What the limit costs: rxm allocates no buffers for it (it receives into the posted buffer),
 * but a message that finds no posted receive is held in memory rxm allocates for its size.
 */
public final class RxmEagerLimit {
    /** The variable rxm reads. */
    public static final String VARIABLE = "FI_OFI_RXM_EAGER_LIMIT";
    /** What the binding sets when the environment does not: 64 MiB. */
    public static final long DEFAULT = 64L << 20;

    private RxmEagerLimit() {
    }

    /**
     * The limit in effect for endpoints of this process: the environment's as the JVM started
     * with it, else {@link #DEFAULT}; 0 when the environment's is not a number (rxm then keeps
     * its own default, and ofinet sends no message whole beyond its eager path).
     */
    public static long bytes() {
        return bytes(System.getenv());
    }

    /**
     * The limit for the environment {@code env}. rxm 1.17 reads {@link #VARIABLE} only with direct
     * sends and dynamic receive buffers both on ({@code FI_OFI_RXM_ENABLE_DIRECT_SEND},
     * {@code FI_OFI_RXM_ENABLE_DYN_RBUF}, on unless set false), and raises it to its buffer size;
     * with either off, its buffer size is the limit.
     */
    static long bytes(java.util.Map<String, String> env) {
        boolean direct = placesDirectly(env);
        // Unset: the binding's 1 KiB where rxm places directly, else rxm's 16 KiB, which the binding
        // then leaves. On a machine with an RDMA device, where rxm keeps its 16 KiB, the limit taken
        // is below rxm's, never above.
        long buffer = direct ? RxmBufferSize.DEFAULT : RxmBufferSize.RXM_DEFAULT;
        try {
            String size = env.get(RxmBufferSize.VARIABLE);
            buffer = size == null ? buffer : Math.max(1, Long.decode(size.trim()));
        } catch (NumberFormatException e) {
            // rxm keeps its default
        }
        if (!direct) {
            return buffer;
        }
        long limit = parse(env.get(VARIABLE));
        return limit == 0 ? 0 : Math.max(limit, buffer);
    }

    /**
     * Whether rxm places messages directly over tcp in environment {@code env}: direct sends and
     * dynamic receive buffers both on ({@code FI_OFI_RXM_ENABLE_DIRECT_SEND},
     * {@code FI_OFI_RXM_ENABLE_DYN_RBUF}, on unless set false). Otherwise its eager limit is its
     * buffer size.
     */
    public static boolean placesDirectly(java.util.Map<String, String> env) {
        return !off(env.get("FI_OFI_RXM_ENABLE_DIRECT_SEND")) && !off(env.get("FI_OFI_RXM_ENABLE_DYN_RBUF"));
    }

    /** A boolean of libfabric's spelled false: 0, no, off or false. */
    private static boolean off(String value) {
        return value != null && java.util.Set.of("0", "no", "off", "false").contains(
                value.trim().toLowerCase(java.util.Locale.ROOT));
    }

    static long parse(String value) {
        if (value == null) {
            return DEFAULT;
        }
        try {
            long bytes = Long.decode(value.trim());
            return bytes > 0 ? bytes : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
