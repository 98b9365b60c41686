package io.ofinet.plugin.ofi;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/** The one place where protocol failures become {@link NetException}s. */
final class Errors {
    private Errors() {
    }

    /** The NCCL-style result for a protocol error category. */
    static NetResult resultOf(ErrorCategory category) {
        switch (category) {
            case SYSTEM:
                return NetResult.SYSTEM_ERROR;
            case INTERNAL:
                return NetResult.INTERNAL_ERROR;
            case INVALID_ARGUMENT:
                return NetResult.INVALID_ARGUMENT;
            case INVALID_USAGE:
                return NetResult.INVALID_USAGE;
            case REMOTE:
                return NetResult.REMOTE_ERROR;
            default:
                throw new IllegalArgumentException("unmapped category " + category);
        }
    }

    /**
     * Wraps a protocol failure, keeping its message and the failure as the cause. The message is
     * prefixed with the operation, unless the protocol already named that operation first.
     */
    static NetException toNetException(String operation, RdmaException e) {
        String prefix = operation + ": ";
        String message = e.getMessage().startsWith(prefix) ? e.getMessage() : prefix + e.getMessage();
        return new NetException(resultOf(e.category()), message, e);
    }
}
