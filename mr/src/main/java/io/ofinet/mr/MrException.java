package io.ofinet.mr;

/** A registration that could not be made or released, with the reason. */
public class MrException extends Exception {
    private static final long serialVersionUID = 1L;

    public MrException(String message) {
        super(message);
    }

    public MrException(String message, Throwable cause) {
        super(message, cause);
    }
}
