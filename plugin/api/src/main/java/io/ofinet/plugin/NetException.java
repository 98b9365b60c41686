package io.ofinet.plugin;

import java.util.Objects;

/** A failed plugin operation, with its NCCL-style result. */
public class NetException extends Exception {
    private static final long serialVersionUID = 1L;

    private final NetResult result;

    public NetException(NetResult result, String message) {
        this(result, message, null);
    }

    public NetException(NetResult result, String message, Throwable cause) {
        super(message, cause);
        this.result = Objects.requireNonNull(result, "result");
        if (result == NetResult.SUCCESS || result == NetResult.IN_PROGRESS) {
            throw new IllegalArgumentException(result + " is not an error");
        }
    }

    /** The NCCL-style result; never {@link NetResult#SUCCESS} or {@link NetResult#IN_PROGRESS}. */
    public NetResult result() {
        return result;
    }

    @Override
    public String toString() {
        return getClass().getName() + " [" + result + "]: " + getMessage();
    }
}
