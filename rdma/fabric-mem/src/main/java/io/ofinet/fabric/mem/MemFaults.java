package io.ofinet.fabric.mem;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FiErrno;

/** Faults to inject into an in-memory network. Thread-safe. */
public final class MemFaults {
    private final MemNetwork network;

    MemFaults(MemNetwork network) {
        this.network = network;
    }

    /**
     * The next {@code count} posts on {@code endpoint} fail at once: with {@code -FI_EAGAIN} they
     * return {@link Endpoint#AGAIN}, with any other error number they throw.
     */
    public void failNextPosts(Endpoint endpoint, int count, int errno) {
        synchronized (network) {
            MemEndpoint ep = (MemEndpoint) endpoint;
            ep.failPosts = count;
            ep.failPostsErrno = Math.abs(errno);
        }
    }

    /** The next {@code count} operations posted on {@code endpoint} complete with an error. */
    public void failNextCompletions(Endpoint endpoint, int count, int errno) {
        synchronized (network) {
            MemEndpoint ep = (MemEndpoint) endpoint;
            ep.failCompletions = count;
            ep.failCompletionsErrno = Math.abs(errno);
        }
    }

    /**
     * The endpoint vanishes, as a peer whose process died: what was on its way to it completes
     * in error at the initiators, later operations to it fail with {@code FI_EHOSTUNREACH}, and
     * it neither delivers nor completes anything more.
     */
    public void vanish(Endpoint endpoint) {
        synchronized (network) {
            ((MemEndpoint) endpoint).vanish(FiErrno.FI_EHOSTUNREACH);
        }
    }
}
