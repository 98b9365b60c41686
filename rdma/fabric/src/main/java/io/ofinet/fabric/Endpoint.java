package io.ofinet.fabric;

/**
 * A reliable-datagram endpoint, bound to its completion queue and address vector at creation.
 *
 * <p>Posting calls return {@link #POSTED} or {@link #AGAIN} ({@code -FI_EAGAIN}: a queue is full;
 * progress the completion queue and post again). Any other failure throws. Posting calls take
 * only primitives so that an implementation can post without allocating. One thread at a time
 * posts on an endpoint. {@code context} comes back in the completion entry; {@code desc} is the
 * local descriptor of the registration covering the local buffer (0 when the provider needs
 * none); remote addresses follow the provider's convention ({@link FabricInfo#virtualAddressing}).
 */
public interface Endpoint extends AutoCloseable {
    /** The post was accepted. */
    int POSTED = 0;
    /** The post was refused for now: a queue is full. */
    int AGAIN = -FiErrno.FI_EAGAIN;
    /** {@link #cancel}: the provider knows no pending operation with that context. */
    int NOT_FOUND = -FiErrno.FI_ENOENT;

    FabricInfo info();

    /** Enables it ({@code fi_enable}); posts and {@link #name} need it enabled. */
    void enable() throws FabricException;

    /** Its address, as peers insert it in their address vectors ({@code fi_getname}). */
    byte[] name() throws FabricException;

    int send(long buf, long len, long desc, long dest, long context) throws FabricException;

    int recv(long buf, long len, long desc, long src, long context) throws FabricException;

    /** A send carrying immediate data, delivered in the receiver's completion entry. */
    int senddata(long buf, long len, long desc, long data, long dest, long context) throws FabricException;

    int write(long buf, long len, long desc, long dest, long remoteAddr, long key, long context)
            throws FabricException;

    /**
     * An RDMA write whose immediate data arrives as a completion at the target with {@link
     * Fi#REMOTE_CQ_DATA}, without consuming a posted receive.
     */
    int writedata(long buf, long len, long desc, long data, long dest, long remoteAddr, long key,
            long context) throws FabricException;

    int read(long buf, long len, long desc, long src, long remoteAddr, long key, long context)
            throws FabricException;

    /** {@code fi_sendmsg} with one buffer; {@code data} is sent when flags has REMOTE_CQ_DATA. */
    int sendmsg(long buf, long len, long desc, long dest, long data, long context, long flags)
            throws FabricException;

    /** {@code fi_recvmsg} with one buffer. */
    int recvmsg(long buf, long len, long desc, long src, long context, long flags) throws FabricException;

    /** {@code fi_writemsg} with one local and one remote buffer. */
    int writemsg(long buf, long len, long desc, long dest, long remoteAddr, long key, long data,
            long context, long flags) throws FabricException;

    /** {@code fi_readmsg} with one local and one remote buffer. */
    int readmsg(long buf, long len, long desc, long src, long remoteAddr, long key, long context,
            long flags) throws FabricException;

    /**
     * A receive ({@code fi_trecv}) that takes only a tagged message whose tag equals {@code tag} in
     * every bit not set in {@code ignore}; among several that match, the first posted. Needs
     * {@link Fi#TAGGED} in the offer's capabilities; a provider without tagged messages refuses it
     * with FI_ENOSYS.
     */
    int trecv(long buf, long len, long desc, long src, long tag, long ignore, long context) throws FabricException;

    /**
     * A tagged message carrying immediate data ({@code fi_tsenddata}), for a receive posted with
     * {@link #trecv}: it lands in the first one whose tag matches, or waits in the provider until
     * one is posted. Needs {@link Fi#TAGGED}, as {@link #trecv} does.
     */
    int tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context)
            throws FabricException;

    /**
     * Asks the provider to cancel this endpoint's pending operation with {@code context} ({@code
     * fi_cancel}), which providers do for receives not yet matched. Returns {@link #POSTED} when
     * the provider took the request; the operation then completes once, either cancelled (an error
     * completion with FI_ECANCELED and its context) or in its own way if it was already under way.
     * Returns {@link #NOT_FOUND} where the provider says it has no such operation (sockets does;
     * {@code ofi_rxm} returns {@link #POSTED} either way).
     */
    int cancel(long context) throws FabricException;

    /**
     * Closes it. Under FI_MR_ENDPOINT the registrations bound to it must be closed first. Closing
     * twice is harmless.
     */
    @Override
    void close() throws FabricException;
}
