package io.ofinet.fabric;

/** An open fabric. Closing it requires its domains to be closed. */
public interface Fabric extends AutoCloseable {
    /** The offer it was opened from. */
    FabricInfo info();

    /** Opens the offer's domain ({@code fi_domain}). */
    Domain openDomain() throws FabricException;

    /** Closes it ({@code fi_close}). Closing twice is harmless. */
    @Override
    void close() throws FabricException;
}
