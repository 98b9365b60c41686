package io.ofinet.nccl;

/**
 * A call the door refuses before it reaches the plugin: a NULL, unknown or stale handle, a count or
 * size NCCL's core should never pass. Carries the {@code ncclResult_t} to return.
 */
final class DoorException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int code;

    DoorException(int code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    int code() {
        return code;
    }
}
