package io.ofinet.rdma;

import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.Registrar;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.util.ArrayList;
import java.util.List;

/**
 * How an endpoint closes: its communicators first, each as {@link CommClosing} closes it and all
 * within one {@code peerTimeoutMs}, then (holding the endpoint) its pools' registrations, what the
 * application left registered for its rails, the rails, and the pools' memory. Also what an
 * endpoint that fails to open closes of itself.
 */
final class EndpointClosing {
    private final RdmaEndpoint endpoint;
    private final CommClosing closing;
    private final HostMemory memory;
    private final EndpointPools pools;
    private final RailSet rails;
    private final CommTable comms;
    private final Handshake handshake;
    private final SlowDuties duties;
    private final long peerTimeoutNanos;

    EndpointClosing(RdmaEndpoint endpoint, CommClosing closing, HostMemory memory, EndpointPools pools, RailSet rails,
            CommTable comms, Handshake handshake, SlowDuties duties, long peerTimeoutMs) {
        this.endpoint = endpoint;
        this.closing = closing;
        this.memory = memory;
        this.pools = pools;
        this.rails = rails;
        this.comms = comms;
        this.handshake = handshake;
        this.duties = duties;
        this.peerTimeoutNanos = peerTimeoutMs * 1_000_000L;
    }

    /** The endpoint's close: its communicators, then (holding it) its pools and rails. Closing twice is harmless. */
    void close(Device device) throws RdmaException {
        endpoint.lock();
        try {
            if (endpoint.isClosed()) {
                return;
            }
        } finally {
            endpoint.unlock();
        }
        RdmaException failure = closeAll();
        endpoint.lock();
        try {
            if (endpoint.isClosed()) {
                return;
            }
            List<Long> mailboxes = duties.releaseAll();
            endpoint.markClosed();
            RdmaException resources = closeResources(device.registrar(), null);
            mailboxes.forEach(memory::free);
            device.closed(endpoint);
            failure = resources == null ? failure : Device.add(failure, resources);
        } finally {
            endpoint.unlock();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The pools' registrations first, then what the application left registered for these rails,
     * then the rails, and only then the pools' memory, which posted receives may use until their
     * endpoint is closed. What fails is added to {@code primary} when there is one, and returned
     * otherwise.
     */
    RdmaException closeResources(Registrar registrar, Exception primary) {
        List<Exception> problems = new ArrayList<>();
        pools.deregister(problems);
        rails.close(registrar, problems);
        pools.free();
        if (primary != null) {
            problems.forEach(primary::addSuppressed);
            return null;
        }
        return problems.isEmpty() ? null : RdmaException.collected(ErrorCategory.SYSTEM, "closing an endpoint", problems);
    }

    /**
     * Closes every communicator of the endpoint: the listen communicators, then the send
     * communicators (each draining as {@link CommClosing#closeSend} does), then the receive
     * communicators (each telling its sender and waiting as {@link CommClosing#closeRecv} does), so
     * that no peer writes into this endpoint's buffers once its registrations go. All of them wait
     * within one {@code peerTimeoutMs}.
     *
     * @return what failed, or null
     */
    private RdmaException closeAll() {
        List<ListenComm> listens;
        List<SendComm> sends;
        List<RecvComm> recvs;
        endpoint.lock();
        try {
            listens = handshake.listens();
            sends = comms.openSends();
            recvs = comms.openRecvs();
        } finally {
            endpoint.unlock();
        }
        listens.forEach(closing::closeListen);
        // One bound for them all: a stopped peer holds the endpoint's close for peerTimeoutMs at
        // most, however many communicators it has.
        long deadline = System.nanoTime() + peerTimeoutNanos;
        RdmaException failure = null;
        for (SendComm comm : sends) {
            try {
                closing.closeSend(comm, deadline);
            } catch (RdmaException e) {
                failure = Device.add(failure, e);
            }
        }
        for (RecvComm comm : recvs) {
            closing.closeRecv(comm, deadline);
        }
        return failure;
    }
}
