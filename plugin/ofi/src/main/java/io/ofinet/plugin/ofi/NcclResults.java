package io.ofinet.plugin.ofi;

import io.ofinet.plugin.NetResult;

/**
 * The one mapping from a {@link NetResult} to the {@code ncclResult_t} the C door returns, as NCCL's
 * net plugin README prescribes: {@code ncclSystemError} for network and system failures, {@code
 * ncclInternalError} when NCCL's core misuses the interface, {@code ncclInvalidUsage} for the
 * user's errors (configuration, a message larger than its receive buffer), and never {@code
 * ncclInvalidArgument}: the arguments a plugin sees come from NCCL's core, so a malformed one is the
 * core's misuse.
 *
 * <p>A peer that died or misbehaved is {@code ncclRemoteError}: NCCL's own transports return it for
 * an error completion (IB) and for a connection the peer closed (sockets), and NCCL reports it to
 * the application as "remote process exited or there was a network error", which is what it is.
 */
public final class NcclResults {
    /** {@code ncclSuccess}. */
    public static final int SUCCESS = 0;
    /** {@code ncclSystemError}. */
    public static final int SYSTEM_ERROR = 2;
    /** {@code ncclInternalError}. */
    public static final int INTERNAL_ERROR = 3;
    /** {@code ncclInvalidUsage}. */
    public static final int INVALID_USAGE = 5;
    /** {@code ncclRemoteError}. */
    public static final int REMOTE_ERROR = 6;

    private NcclResults() {
    }

    /** The code the C door returns for a failure with {@code result}. */
    public static int code(NetResult result) {
        switch (result) {
            case SYSTEM_ERROR:
                return SYSTEM_ERROR;
            case INTERNAL_ERROR:
            case INVALID_ARGUMENT:
                return INTERNAL_ERROR;
            case INVALID_USAGE:
                return INVALID_USAGE;
            case REMOTE_ERROR:
                return REMOTE_ERROR;
            case UNHANDLED_CUDA_ERROR:
                return result.code();
            default:
                throw new IllegalArgumentException(result + " is not a failure");
        }
    }
}
