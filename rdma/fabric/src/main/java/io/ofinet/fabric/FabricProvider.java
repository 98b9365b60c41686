package io.ofinet.fabric;

/** Entry point of a provider implementation: libfabric itself, or the in-memory provider. */
public interface FabricProvider {

    /** A short name with the version, e.g. {@code libfabric 1.17.0}. */
    String description();

    /**
     * The offers matching the hints ({@code fi_getinfo}). No match is an empty list, not an
     * error.
     */
    InfoList getinfo(InfoHints hints) throws FabricException;

    /** Opens the fabric of an offer ({@code fi_fabric}). */
    Fabric openFabric(FabricInfo info) throws FabricException;

    /** Host memory by address, as this provider's data path reads and writes it. */
    HostMemory memory();
}
