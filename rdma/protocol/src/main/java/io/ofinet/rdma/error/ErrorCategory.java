package io.ofinet.rdma.error;

/**
 * What kind of failure an {@link RdmaException} reports. The categories are NCCL's error
 * results; the plugin maps each to its {@code NetResult} in one place.
 */
public enum ErrorCategory {
    /** A libfabric or operating-system call failed. */
    SYSTEM,
    /** A broken invariant inside ofinet. */
    INTERNAL,
    /** An argument is out of range or malformed. */
    INVALID_ARGUMENT,
    /** A call not allowed in the current state (a stale request, a closed communicator, ...). */
    INVALID_USAGE,
    /** The peer failed, vanished, or sent something invalid. */
    REMOTE
}
