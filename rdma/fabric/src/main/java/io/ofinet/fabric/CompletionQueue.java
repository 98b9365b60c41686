package io.ofinet.fabric;

/** A completion queue. Read by one thread at a time. */
public interface CompletionQueue extends AutoCloseable {

    /** {@link #read} returns this when an error entry waits: fetch it with {@link #readError}. */
    int ERROR_AVAILABLE = -FiErrno.FI_EAVAIL;

    /**
     * Reads at most {@code Math.min(max, out.capacity())} completions into {@code out}
     * ({@code fi_cq_read}), and drives the provider's progress.
     *
     * @return the number read (0 when none is ready), or {@link #ERROR_AVAILABLE}
     */
    int read(CompletionBatch out, int max) throws FabricException;

    /**
     * Reads the next error entry ({@code fi_cq_readerr}) into {@code out}.
     *
     * @return true when an entry was read
     */
    boolean readError(CompletionError out) throws FabricException;

    @Override
    void close() throws FabricException;
}
