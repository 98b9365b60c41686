package io.ofinet.fabric;

/**
 * An open domain: where completion queues, address vectors, endpoints and registrations are
 * made. Closing it requires all of those to be closed first.
 */
public interface Domain extends AutoCloseable {
    FabricInfo info();

    /** A completion queue of FI_CQ_FORMAT_DATA entries with room for {@code size} entries. */
    CompletionQueue openCompletionQueue(int size) throws FabricException;

    /** An address vector of the table kind for about {@code count} peers. */
    AddressVector openAddressVector(int count) throws FabricException;

    /**
     * An endpoint bound at once to its completion queue (for transmit and receive) and its
     * address vector, not yet enabled. Binding at creation means no endpoint ever exists
     * unbound: closing an unbound {@code ofi_rxm} endpoint crashes the process.
     */
    Endpoint openEndpoint(CompletionQueue cq, AddressVector av) throws FabricException;

    /**
     * Registers {@code [address, address + length)} ({@code fi_mr_regattr}).
     *
     * @param access access bits ({@link Fi#SEND}, {@link Fi#RECV}, {@link Fi#READ}, {@link
     *     Fi#WRITE}, {@link Fi#REMOTE_READ}, {@link Fi#REMOTE_WRITE})
     * @param requestedKey the key to use unless the provider chooses keys; a key already used in
     *     this domain fails with {@code FI_ENOKEY}
     * @param iface where the memory lives, {@link Fi#HMEM_SYSTEM} for host memory
     */
    MemoryRegion register(long address, long length, long access, long requestedKey, int iface)
            throws FabricException;

    @Override
    void close() throws FabricException;
}
