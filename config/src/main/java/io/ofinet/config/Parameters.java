package io.ofinet.config;

import java.util.List;
import java.util.Optional;

/**
 * Every device-wide parameter ofinet reads, with its default.
 *
 * <p>Names follow the C++ AWS OFI NCCL plugin's {@code OFI_NCCL_*} parameters, so that {@code
 * OFI_NCCL_EAGER_MAX_SIZE} becomes {@code eagerMaxSize} in a layout, {@code
 * OFINET_EAGER_MAX_SIZE} in the environment and {@code ofinet.eagerMaxSize} as a system
 * property. The defaults are that plugin's.
 */
public final class Parameters {
    /** Registration scope; see {@link MrScope}. */
    public static final Parameter<MrScope> MR_SCOPE = Parameter.choice("mrScope", ValueType.MR_SCOPE, MrScope.AUTO,
            "where registrations live: auto (endpoint scope when the provider requires"
                    + " FI_MR_ENDPOINT), domain, or endpoint");

    /**
     * Largest message sent eagerly, without waiting for the receiver's announcement. At most 16
     * MiB: an eager message's length travels in 32 bits, and each of the up to 65,536 eager
     * buffers posted per data rail holds one.
     */
    public static final Parameter<Long> EAGER_MAX_SIZE = new Parameter<>("eagerMaxSize", ValueType.LONG, 8192L, "B",
            0, 16L << 20, "largest message sent eagerly, before the receiver's announcement arrives");

    /**
     * How long a send larger than {@code eagerMaxSize} that finds no announcement waits at the
     * head of its queue for one before it sends its request to send (RTS). Only a receive that
     * sends no announcement (its buffers all take eager messages) needs the RTS, to refuse the
     * send; every other receive's announcement arrives, and the send goes without one. Its former
     * name {@code intentDelayUs} is still accepted.
     */
    public static final Parameter<Long> RTS_DELAY_US = new Parameter<>("rtsDelayUs", ValueType.LONG,
            1000L, "us", 0, 60_000_000L,
            "how long a send larger than eagerMaxSize waits for its receive's announcement before it"
                    + " announces itself with a request to send (RTS); 0: at once").formerly("intentDelayUs");

    /**
     * Smallest stripe when a message is split over data rails. A multiple of 128 so that every
     * stripe but the last starts on a 128-byte boundary, as the scheduler rounds stripes to 128.
     */
    public static final Parameter<Long> MIN_STRIPE_SIZE = new Parameter<>("minStripeSize",
            ValueType.LONG, 131072L, "B", 128, Long.MAX_VALUE, 128,
            "smallest stripe when a message is split over data rails; a positive multiple of 128");

    /** Messages below this size go whole to one rail, rotating round-robin. */
    public static final Parameter<Long> SCHED_MAX_SMALL_RR_SIZE = Parameter.bytes("schedMaxSmallRrSize", 64, 0,
            "messages smaller than this go whole to one data rail, round-robin");

    /** Completions read from a CQ per call; bounds the work of one progress step. */
    public static final Parameter<Long> CQ_READ_COUNT = Parameter.count("cqReadCount", 4, 1, 1024,
            "completions read from a completion queue per read, the batch of one progress step");

    /**
     * Control-rail receive buffers kept posted (handshakes, zero-byte messages, sent announcements),
     * low-water mark.
     */
    public static final Parameter<Long> RDMA_MIN_POSTED_CONTROL_BUFFERS = Parameter.count(
            "rdmaMinPostedControlBuffers", 16, 1, 65536,
            "control receive buffers kept posted per control rail; more are posted below this");

    /** Control-rail receive buffers kept posted, high-water mark. */
    public static final Parameter<Long> RDMA_MAX_POSTED_CONTROL_BUFFERS = Parameter.count(
            "rdmaMaxPostedControlBuffers", 32, 1, 65536,
            "control receive buffers posted per control rail at most");

    /** Eager receive buffers kept posted, low-water mark. */
    public static final Parameter<Long> RDMA_MIN_POSTED_EAGER_BUFFERS = Parameter.count(
            "rdmaMinPostedEagerBuffers", 64, 0, 65536,
            "eager receive buffers kept posted per data rail; more are posted below this");

    /** Eager receive buffers kept posted, high-water mark. */
    public static final Parameter<Long> RDMA_MAX_POSTED_EAGER_BUFFERS = Parameter.count(
            "rdmaMaxPostedEagerBuffers", 128, 0, 65536,
            "eager receive buffers posted per data rail at most");

    /**
     * Bytes of an application-chosen MR key; the key space is 2^(8 * min(this, the provider's
     * mr_key_size)). Ignored when the provider chooses keys (FI_MR_PROV_KEY).
     */
    public static final Parameter<Long> MR_KEY_SIZE = new Parameter<>("mrKeySize", ValueType.LONG,
            2L, "B", 1, 8,
            "bytes of an MR key chosen by ofinet; the key pool holds 2^(8 * size) keys");

    /** Turns the registration cache off: every regMr registers. */
    public static final Parameter<Boolean> MR_CACHE_DISABLE = Parameter.flag("mrCacheDisable", false,
            "register every buffer anew instead of sharing page-aligned cached registrations");

    /** Live entries the registration cache may hold; past it registrations bypass the cache. */
    public static final Parameter<Long> MR_CACHE_MAX_ENTRIES = Parameter.count("mrCacheMaxEntries", 65536, 0,
            Integer.MAX_VALUE,
            "live registrations the cache may hold; past it registrations bypass the cache");

    /** Bytes the registration cache may cover; past it registrations bypass the cache. */
    public static final Parameter<Long> MR_CACHE_MAX_BYTES = Parameter.bytes("mrCacheMaxBytes", 1L << 40, 0,
            "bytes the cached registrations may cover; past it registrations bypass the cache");

    /** How long connect/accept may wait for the peer before failing. */
    public static final Parameter<Long> CONNECTION_TIMEOUT_MS = new Parameter<>("connectionTimeoutMs",
            ValueType.LONG, 30_000L, "ms", 1, 86_400_000L,
            "how long connect and accept wait for the peer before failing");

    /**
     * Connections a listen communicator holds that {@code accept} has not returned yet (accepted
     * or mid-handshake); a CONNECT beyond it is refused with a REJECT naming the bound.
     */
    public static final Parameter<Long> MAX_PENDING_CONNECTIONS = Parameter.count("maxPendingConnections", 128, 1,
            65536,
            "connections per listen communicator that accept has not returned yet; more CONNECTs are refused");

    /**
     * How long a communicator with requests outstanding waits without hearing anything from its
     * peer (data, announcements, keepalives) before failing them. This is for a peer that is
     * alive but silent (stopped, in a long pause); a peer that is gone is condemned as soon as
     * there is evidence of it (error completions, refused reconnects, its process ended).
     */
    public static final Parameter<Long> PEER_TIMEOUT_MS = new Parameter<>("peerTimeoutMs", ValueType.LONG,
            30_000L, "ms", 1, 86_400_000L,
            "how long a busy communicator waits without hearing from its peer before failing its requests");

    /**
     * How long every post to one peer may be refused (-FI_EAGAIN) before the peer is condemned and
     * its communicators fail. Refused posts wait in that peer's own queue, so a refusing peer
     * delays only its own traffic meanwhile; retries to it back off.
     */
    public static final Parameter<Long> POST_RETRY_TIMEOUT_MS = new Parameter<>("postRetryTimeoutMs",
            ValueType.LONG, 10_000L, "ms", 1, 86_400_000L,
            "how long every post to one peer may be refused before the peer is condemned");

    /**
     * Turns the flush off. The flush reads a few bytes of each received buffer back through the
     * endpoint's own address, which makes device-memory writes visible on GPU systems.
     */
    public static final Parameter<Boolean> GDR_FLUSH_DISABLE = Parameter.flag("gdrFlushDisable", false,
            "skip the RDMA read that flushes received data (iflush completes at once)");

    /**
     * Turns off the look in {@code /proc} at peers on the same host, which condemns a peer as soon
     * as its process has ended; their death is then decided by the provider's evidence and
     * {@code peerTimeoutMs} only.
     */
    public static final Parameter<Boolean> PEER_PROCESS_CHECK_DISABLE = Parameter.flag("peerProcessCheckDisable", false,
            "do not look up peers on this host in /proc (a peer whose process ended is then found by the"
            + " provider's evidence or peerTimeoutMs)");

    /** How the target of an RDMA write learns of it; see {@link WriteNotice}. */
    public static final Parameter<WriteNotice> WRITE_NOTICE = Parameter.choice("writeNotice", ValueType.WRITE_NOTICE,
            WriteNotice.AUTO, "how a write's target learns of it: auto (tagged on tcp with one data rail, message on"
                    + " tcp with more; on shm immediate up to 4 KiB, message above; immediate elsewhere), immediate"
                    + " (fi_writedata), message (fi_write, then a"
                    + " zero-byte message), or tagged (as message, but large buffers get one tagged message and no"
                    + " write)");

    /** Whether a large send that finds no announcement sends its head at once; see {@link EagerHead}. */
    public static final Parameter<EagerHead> EAGER_HEAD = Parameter.choice("eagerHead", ValueType.EAGER_HEAD,
            EagerHead.AUTO, "whether a send of at least eagerHeadMinSize that finds no announcement sends its first"
                    + " eagerMaxSize bytes at once: auto (on tcp), on, or off");

    /** Smallest send that sends a head (eagerHead); below it heads measured slower on tcp. */
    public static final Parameter<Long> EAGER_HEAD_MIN_SIZE = Parameter.bytes("eagerHeadMinSize", 524288, 1,
            "smallest send that sends its head when it finds no announcement (eagerHead)");

    /**
     * Turns off asking providers for the source of what arrives (FI_SOURCE), which ties data
     * segments to their connection where the provider reports sources right (docs/PROTOCOL.md,
     * "What a peer can forge").
     */
    public static final Parameter<Boolean> SOURCE_CHECK_DISABLE = Parameter.flag("sourceCheckDisable", false,
            "do not ask providers for the source of arrivals (FI_SOURCE); signals, errors and announcements are"
            + " then tied to their"
            + " connection by their token only, and data segments not at all");

    /**
     * The latency a device reports in its properties, which NCCL's tuner weighs: libfabric tells
     * none, so it is configured (the C++ plugin does the same).
     */
    public static final Parameter<Long> LATENCY_US = new Parameter<>("latencyUs", ValueType.LONG, 0L, "us", 0,
            1_000_000L, "the network latency a device reports in its properties (NCCL's tuner weighs it); libfabric"
                    + " reports none; 0: unknown");

    /** Every parameter, in report order. */
    public static final List<Parameter<?>> ALL = List.of(MR_SCOPE, EAGER_MAX_SIZE, RTS_DELAY_US,
            MIN_STRIPE_SIZE, SCHED_MAX_SMALL_RR_SIZE, CQ_READ_COUNT, RDMA_MIN_POSTED_CONTROL_BUFFERS,
            RDMA_MAX_POSTED_CONTROL_BUFFERS, RDMA_MIN_POSTED_EAGER_BUFFERS,
            RDMA_MAX_POSTED_EAGER_BUFFERS, MR_KEY_SIZE, MR_CACHE_DISABLE, MR_CACHE_MAX_ENTRIES,
            MR_CACHE_MAX_BYTES, CONNECTION_TIMEOUT_MS, MAX_PENDING_CONNECTIONS, PEER_TIMEOUT_MS, POST_RETRY_TIMEOUT_MS,
            PEER_PROCESS_CHECK_DISABLE, GDR_FLUSH_DISABLE, WRITE_NOTICE, EAGER_HEAD, EAGER_HEAD_MIN_SIZE,
            SOURCE_CHECK_DISABLE, LATENCY_US);

    private Parameters() {
    }

    /** Looks a parameter up by its layout name, or the name it had before. */
    public static Optional<Parameter<?>> byName(String name) {
        return ALL.stream().filter(p -> p.name().equals(name) || p.formerName().filter(name::equals).isPresent())
                .findFirst();
    }
}
