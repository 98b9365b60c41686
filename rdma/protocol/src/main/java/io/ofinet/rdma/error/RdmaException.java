package io.ofinet.rdma.error;

import java.util.List;
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

    /**
     * One failure for several: the first problem's message after {@code what}, the first as the
     * cause, the rest suppressed.
     */
    public static RdmaException collected(ErrorCategory category, String what, List<? extends Exception> problems) {
        RdmaException failure = new RdmaException(category, what + ": " + problems.get(0).getMessage(), problems.get(0));
        problems.subList(1, problems.size()).forEach(failure::addSuppressed);
        return failure;
    }
}
