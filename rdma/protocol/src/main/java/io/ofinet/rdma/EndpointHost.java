package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.rail.KeptReceive;

/** {@link RdmaEndpoint} as its communicators and its kept receives see it. */
final class EndpointHost implements CommHost, KeptReceive.Host {
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
    public long arrivalSource() {
        return endpoint.engine.source();
    }

    @Override
    public void expectAnnouncement() {
        endpoint.expectAnnouncement();
    }

    @Override
    public void submitLocal(Operation receive, int engineRail) {
        endpoint.engine.submit(receive, endpoint.peers.local(engineRail));
    }

    @Override
    public void repostNextStep(KeptReceive receive) {
        endpoint.repostNextStep(receive);
    }

    @Override
    public boolean closed() {
        return endpoint.isClosed();
    }

    @Override
    public void dropTruncated(String receive, RdmaException cause) {
        endpoint.immediates.dropTruncated(receive, cause);
    }
}
