package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;

/**
 * The endpoint as its communicators and their requests see it: something to hold for one bounded
 * step, a step to run while holding it, the step's clock, and the control rails to read at the
 * next step. Everything else a communicator uses it is given at construction.
 */
public interface CommHost {
    /** Takes the endpoint for one bounded step (see the ownership rule of {@code io.ofinet.rdma}). */
    void lock();

    void unlock();

    /** One step of progress, by a caller that holds the endpoint. */
    int progressLocked() throws RdmaException;

    /** When the current (or last) reading of the queues began: the time of what arrives in it. */
    long stepNanos();

    /**
     * The address handle of the source of the completion being handled (the provider's, where it
     * names sources), or {@code ProgressEngine.SOURCE_UNTOLD}.
     */
    long arrivalSource();

    /** The caller waits for an announcement or credits: the next step reads the control rails. */
    void expectAnnouncement();
}
