package io.ofinet.fabric;

/** An address vector: peers' endpoint names mapped to the handles operations take. */
public interface AddressVector extends AutoCloseable {
    /** Inserts an endpoint name ({@link Endpoint#name()}) and returns its handle. */
    long insert(byte[] address) throws FabricException;

    /** Removes a handle. */
    void remove(long fiAddr) throws FabricException;

    /** The endpoint name behind a handle. */
    byte[] lookup(long fiAddr) throws FabricException;

    @Override
    void close() throws FabricException;
}
