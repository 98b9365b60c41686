package io.ofinet.plugin;

import java.nio.ByteBuffer;

/**
 * The network plugin interface collective frameworks compile against: the Java form of NCCL's
 * {@code ncclNet_v9}, with {@code v10}'s per-connection configuration, and NCCL's operation names.
 *
 * <p>Semantics kept from NCCL: {@link #listen} never blocks and returns a handle of at most 128
 * bytes; {@link #connect} and {@link #accept} never block and return null until the connection is
 * ready, to be called again (connect with the same handle); {@link #isend}, {@link #irecv} and
 * {@link #iflush} return null when the plugin cannot post now ("retry"), never block and never
 * throw for back-pressure; {@link #test} reports completion and, for receives, each buffer's size.
 * {@code isend}, {@code irecv} and {@code test} allocate nothing.
 *
 * <p>Threading, as NCCL's: {@code listen}, {@code connect}, {@code accept}, {@code regMr} and
 * {@code deregMr} may come from any thread; {@code isend}, {@code irecv}, {@code iflush} and
 * {@code test} on one communicator come from one thread at a time; different communicators may be
 * driven from different threads.
 *
 * <p>Left out on purpose: {@code makeVDevice} (virtual NICs, to come), {@code getDeviceMr} and
 * {@code irecvConsumed} (device-offloaded networking, which needs a device path).
 *
 * <p>Failures are {@link NetException}s with NCCL's results; misuse (a stale request, a handle of
 * another plugin or of a closed communicator, a communicator closed twice, a memory handle
 * deregistered while a request posted with it is outstanding, a size above maxP2pBytes, more than
 * maxRecvs buffers, a memory type not supported) is {@link NetResult#INVALID_USAGE} saying what,
 * and changes nothing; arrays shorter than the buffer count are {@link
 * NetResult#INVALID_ARGUMENT}.
 */
public interface NetPlugin extends AutoCloseable {
    /** The size of a listen handle at most, as NCCL's {@code NCCL_NET_HANDLE_MAXSIZE}. */
    int HANDLE_MAX_BYTES = 128;

    /** The plugin's name, by which frameworks choose it ({@code ofinet.plugin} / {@code OFINET_PLUGIN}). */
    String name();

    /** Initialises the plugin: reads its configuration and finds its devices. */
    void init() throws NetException;

    /** Number of devices. */
    int devices() throws NetException;

    DeviceProperties getProperties(int dev) throws NetException;

    /** A listening communicator on device {@code dev}; its handle goes to the peer out of band. */
    Handles.ListenComm listen(int dev) throws NetException;

    /** Connects to a listener; null until ready: call again with the same handle. */
    Handles.SendComm connect(int dev, byte[] handle, ConnectConfig config) throws NetException;

    /** The next connection accepted on {@code listenComm}; null until one is ready. */
    Handles.RecvComm accept(Handles.ListenComm listenComm) throws NetException;

    /**
     * Registers {@code [address, address + size)} for use with {@code comm} and the other
     * communicators of its endpoint. A zero-byte registration is valid and serves zero-byte sends
     * and receives.
     */
    Handles.MrHandle regMr(Handles.Comm comm, long address, long size, MemoryType type) throws NetException;

    /**
     * Registers the remaining bytes of a direct buffer (position to limit). The caller keeps the
     * buffer reachable (a field, or {@link java.lang.ref.Reference#reachabilityFence}) for as long
     * as ofinet may use its memory: until it is deregistered and every request posted in it has
     * been reported by {@link #test} or ended with its communicator. ofinet holds no reference to
     * it, and a collected direct buffer's memory is freed while the provider may still write there.
     * The same holds for memory given by address and freed by a collector or a cleaner.
     */
    Handles.MrHandle regMr(Handles.Comm comm, ByteBuffer buffer) throws NetException;

    /** Registers memory exported as a dma-buf. */
    Handles.MrHandle regMrDmaBuf(Handles.Comm comm, long address, long size, MemoryType type, long offset, int fd)
            throws NetException;

    /**
     * Deregisters a memory handle. Refused (INVALID_USAGE, nothing deregistered) while a request
     * posted with it has not been reported by {@link #test} and its communicator is open. {@code
     * comm} may be closed: closing a communicator ends its requests, and its buffers are then
     * deregistered through it.
     */
    void deregMr(Handles.Comm comm, Handles.MrHandle mhandle) throws NetException;

    /** Sends {@code size} bytes at {@code address} with {@code tag}; null means retry. */
    Handles.Request isend(Handles.SendComm comm, long address, long size, int tag, Handles.MrHandle mhandle)
            throws NetException;

    /** Sends the remaining bytes of a direct buffer; null means retry. */
    Handles.Request isend(Handles.SendComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle)
            throws NetException;

    /** Posts a grouped receive of {@code n} buffers (1..maxRecvs); null means retry. */
    Handles.Request irecv(Handles.RecvComm comm, int n, long[] addresses, long[] sizes, int[] tags,
            Handles.MrHandle[] mhandles) throws NetException;

    /** Posts a receive into the remaining bytes of a direct buffer; null means retry. */
    Handles.Request irecv(Handles.RecvComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle)
            throws NetException;

    /** Makes received data visible (GPU memory); null means retry. */
    Handles.Request iflush(Handles.RecvComm comm, int n, long[] addresses, long[] sizes, Handles.MrHandle[] mhandles)
            throws NetException;

    /**
     * Whether the request is done; when it is, a receive writes each buffer's size into {@code
     * sizes} (may be null), and the request is gone. A {@code sizes} shorter than the receive's
     * buffer count is INVALID_ARGUMENT, and the request stays outstanding.
     */
    boolean test(Handles.Request request, long[] sizes) throws NetException;

    /**
     * Closes a send communicator; its outstanding requests end with it. Closing it again is
     * INVALID_USAGE.
     */
    void closeSend(Handles.SendComm comm) throws NetException;

    void closeRecv(Handles.RecvComm comm) throws NetException;

    void closeListen(Handles.ListenComm comm) throws NetException;

    /**
     * What device {@code dev} has moved, refused and dropped, by name (messages and bytes each way,
     * refused posts, condemned peers, arrivals dropped by reason, refused connections): a snapshot
     * for people and tests, not part of NCCL's interface. Empty where a plugin keeps none.
     */
    default java.util.Map<String, Long> statistics(int dev) throws NetException {
        return java.util.Map.of();
    }

    /**
     * What communicator {@code comm} has moved, and what was dropped in its name (messages, bytes,
     * arrivals dropped as not from its peer or as malformed), by name; also after it closed. Not
     * part of NCCL's interface. Empty where a plugin keeps none.
     */
    default java.util.Map<String, Long> statistics(Handles.Comm comm) throws NetException {
        return java.util.Map.of();
    }

    /** Closes every communicator and device. */
    @Override
    void close() throws NetException;
}
