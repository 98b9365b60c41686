package io.ofinet.plugin;

/**
 * NCCL's result codes ({@code ncclResult_t}), with NCCL's numeric values so that a framework
 * bridging to native NCCL can pass them through unchanged.
 */
public enum NetResult {
    /** {@code ncclSuccess}. */
    SUCCESS(0),
    /** {@code ncclUnhandledCudaError}: a device runtime call failed. */
    UNHANDLED_CUDA_ERROR(1),
    /** {@code ncclSystemError}: a system or libfabric call failed. */
    SYSTEM_ERROR(2),
    /** {@code ncclInternalError}: a bug in the plugin, or a broken invariant. */
    INTERNAL_ERROR(3),
    /** {@code ncclInvalidArgument}: an argument is out of range or malformed. */
    INVALID_ARGUMENT(4),
    /** {@code ncclInvalidUsage}: a call that is not allowed in the current state. */
    INVALID_USAGE(5),
    /** {@code ncclRemoteError}: the peer failed, went away or sent something invalid. */
    REMOTE_ERROR(6),
    /** {@code ncclInProgress}: an operation has not completed yet. */
    IN_PROGRESS(7);

    private final int code;

    NetResult(int code) {
        this.code = code;
    }

    /** NCCL's numeric value. */
    public int code() {
        return code;
    }

    /** The result with NCCL's numeric value. */
    public static NetResult ofCode(int code) {
        for (NetResult result : values()) {
            if (result.code == code) {
                return result;
            }
        }
        throw new IllegalArgumentException("no NCCL result has code " + code);
    }
}
