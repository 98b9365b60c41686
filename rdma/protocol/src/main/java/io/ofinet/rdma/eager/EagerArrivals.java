package io.ofinet.rdma.eager;

/** Where what arrives in a posted eager buffer goes: the endpoint's dispatch of arrivals. */
public interface EagerArrivals {
    /** A message without immediate data arrived on data rail {@code rail}: not the protocol's, dropped. */
    void dropStray(int rail, long len);

    /** A zero-byte message (a signal, an error, a write notice) with immediate data {@code data}. */
    void zeroByteMessage(int rail, long len, long data);

    /**
     * An eager message of {@code len} bytes in {@code buffer}; returns whether the buffer now holds
     * it (its receive is not posted yet), else it is used up and the buffer is posted again.
     */
    boolean eager(int rail, EagerBuffer buffer, long len, long data);
}
