package io.ofinet.rdma.error;

import java.util.Objects;

/** A protocol failure, with its {@link ErrorCategory}. */
public class RdmaException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ErrorCategory category;

    public RdmaException(ErrorCategory category, String message) {
        this(category, message, null);
    }

    public RdmaException(ErrorCategory category, String message, Throwable cause) {
        super(message, cause);
        this.category = Objects.requireNonNull(category, "category");
    }

    public ErrorCategory category() {
        return category;
    }
}
