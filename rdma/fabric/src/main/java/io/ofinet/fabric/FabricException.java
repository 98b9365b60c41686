package io.ofinet.fabric;

import java.util.Objects;

/**
 * A libfabric call that failed: the call, the error number and libfabric's description of it
 * ({@code fi_strerror}). {@code -FI_EAGAIN} never becomes one: it is a return value meaning "the
 * queue is full, try again after progress".
 */
public class FabricException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    /**
     * @param call the call that failed, with what identifies its object, e.g. {@code fi_mr_bind
     *     (provider tcp;ofi_rxm)}
     * @param errno the positive error number ({@link FiErrno})
     * @param description libfabric's description, {@code fi_strerror(errno)}
     */
    public FabricException(String call, int errno, String description) {
        super(call + " failed: " + FiErrno.name(errno) + " (" + description + ")");
        this.call = Objects.requireNonNull(call, "call");
        this.errno = Math.abs(errno);
    }

    /** The failed call. */
    public String call() {
        return call;
    }

    /** The positive error number. */
    public int errno() {
        return errno;
    }
}
