package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.error.RdmaException;

/** {@link RdmaEndpoint} as its communicators see it. */
final class EndpointHost implements CommHost {
    private final RdmaEndpoint endpoint;

    EndpointHost(RdmaEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void lock() {
        endpoint.lock();
    }

    @Override
    public void unlock() {
        endpoint.unlock();
    }

    @Override
    public int progressLocked() throws RdmaException {
        return endpoint.progressLocked();
    }

    @Override
    public long stepNanos() {
        return endpoint.stepNanos();
    }

    @Override
    public void expectAnnouncement() {
        endpoint.expectAnnouncement();
    }
}
