package io.ofinet.fabric;

/** An error completion ({@code fi_cq_err_entry}); reused between reads. */
public final class CompletionError {
    private long context;
    private long flags;
    private long len;
    private long data;
    private int errno;
    private int providerErrno;
    private String providerMessage = "";

    /** The context of the failed operation. */
    public long context() {
        return context;
    }

    public long flags() {
        return flags;
    }

    public long len() {
        return len;
    }

    public long data() {
        return data;
    }

    /** The positive libfabric error number ({@link FiErrno}). */
    public int errno() {
        return errno;
    }

    /** The provider's own error number. */
    public int providerErrno() {
        return providerErrno;
    }

    /** The provider's description of the error ({@code fi_cq_strerror}). */
    public String providerMessage() {
        return providerMessage;
    }

    /** Stores an entry; for provider implementations. */
    public void set(long context, long flags, long len, long data, int errno, int providerErrno,
            String providerMessage) {
        this.context = context;
        this.flags = flags;
        this.len = len;
        this.data = data;
        this.errno = Math.abs(errno);
        this.providerErrno = providerErrno;
        this.providerMessage = providerMessage == null ? "" : providerMessage;
    }

    @Override
    public String toString() {
        return FiErrno.name(errno) + " (" + providerMessage + ", provider errno " + providerErrno
                + ") context " + context + " flags 0x" + Long.toHexString(flags);
    }
}
