package io.ofinet.fabric;

/**
 * A registration. Under FI_MR_ENDPOINT it is usable only after {@link #bind} to the endpoint that
 * uses it and {@link #enable}; it must be closed before that endpoint.
 */
public interface MemoryRegion extends AutoCloseable {
    long address();

    long length();

    /** The key a peer names it by; valid after {@link #enable} under FI_MR_ENDPOINT. */
    long key() throws FabricException;

    /** The local descriptor passed with operations on this memory. */
    long descriptor();

    /** Binds it to an endpoint ({@code fi_mr_bind}); before {@link #enable}. */
    void bind(Endpoint endpoint, long flags) throws FabricException;

    /** Enables it ({@code fi_mr_enable}) after binding. */
    void enable() throws FabricException;

    @Override
    void close() throws FabricException;
}
