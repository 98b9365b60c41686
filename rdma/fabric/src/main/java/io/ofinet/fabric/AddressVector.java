package io.ofinet.fabric;

/** An address vector: peers' endpoint names mapped to the handles operations take. */
public interface AddressVector extends AutoCloseable {
    /**
     * Inserts an endpoint name ({@link Endpoint#name()}) and returns its handle; a name that is not
     * one of the provider's address format is refused ({@link #requireWellFormed}).
     */
    long insert(byte[] address) throws FabricException;

    /**
     * Refuses, with FI_EINVAL naming what is wrong, a name that is not one of this vector's address
     * format (a peer's, or a connect handle's, sent wrong): before an insert, so that a caller can
     * tell it from a refusal of the insert itself.
     */
    void requireWellFormed(byte[] address) throws FabricException;

    /** Removes a handle. */
    void remove(long fiAddr) throws FabricException;

    /** The endpoint name behind a handle. */
    byte[] lookup(long fiAddr) throws FabricException;

    /**
     * Why the peer behind a handle cannot be reached, where the provider's own state shows it and
     * its posts would say only -FI_EAGAIN; null when nothing shows it. Not for the data path: it
     * may read the file system.
     */
    default String unreachable(long fiAddr) {
        return null;
    }

    @Override
    void close() throws FabricException;
}
