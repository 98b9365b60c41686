package io.ofinet.rdma;

import io.ofinet.fabric.FabricException;
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
 * How an endpoint closes: its communicators first, each as {@link CommClosing} closes it, all
 * waiting for their peers within one {@code peerTimeoutMs} (and for the answers to cancels within
 * one more), then (holding the endpoint) its pools' registrations, what the
 * application left registered for its rails, the rails, and the pools' memory. Also what an
 * endpoint that fails to open closes of itself.
 */
final class EndpointClosing {
    private static final System.Logger LOG = System.getLogger(EndpointClosing.class.getName());
    private final RdmaEndpoint endpoint;
    private final CommClosing closing;
    private final HostMemory memory;
    private final EndpointPools pools;
    private final RailSet rails;
    private final CommTable comms;
    private final Handshake handshake;
    private final SlowDuties duties;
    private final EndpointUse use;
    private final long peerTimeoutNanos;

    EndpointClosing(RdmaEndpoint endpoint, CommClosing closing, HostMemory memory, EndpointPools pools, RailSet rails,
            CommTable comms, Handshake handshake, SlowDuties duties, EndpointUse use, long peerTimeoutMs) {
        this.endpoint = endpoint;
        this.closing = closing;
        this.memory = memory;
        this.pools = pools;
        this.rails = rails;
        this.comms = comms;
        this.handshake = handshake;
        this.duties = duties;
        this.use = use;
        this.peerTimeoutNanos = peerTimeoutMs * 1_000_000L;
    }

    /** The endpoint's close: its communicators, then (holding it) its pools and rails. Closing twice is harmless. */
    void close(Device device) throws RdmaException {
        endpoint.lock();
        try {
            if (endpoint.isClosed()) {
                return;
            }
            use.closing();
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
            failure = resources == null ? failure : Device.add(failure, resources);
        } finally {
            endpoint.unlock();
        }
        // Not holding the endpoint, nor waiting for the device: its close holds it while it closes each endpoint.
        device.closed(endpoint);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes the endpoint when it was opened for a thread and nothing of it is in use
     * ({@link EndpointUse}), if that thread has ended, or if it is that thread calling and the
     * provider still holds operations of closed send communicators to peers that stopped
     * ({@link EndpointUse#closedWithStranded}). Nothing can reach it then but this close: NCCL's
     * service thread of a communicator ends with it, and would leave its endpoint open otherwise;
     * and only the close ends what the provider holds, which may read memory the application frees
     * once its communicators are closed and its buffers deregistered (docs/FABRIC.md). The thread
     * opens a new endpoint at its next call. For an ended thread it never waits: an endpoint someone
     * holds is left for a later look; its own thread waits for a step in progress.
     *
     * @return whether it closed
     */
    boolean closeIfAbandoned(Device device) {
        boolean ended = use.ownerEnded();
        if (ended ? !endpoint.tryLock() : !use.mayCloseForStranded()) {
            return false;
        }
        if (!ended) {
            endpoint.lock(); // its own thread, between calls: a step that holds it ends soon
        }
        String why;
        try {
            if (endpoint.isClosed() || !use.unused(comms, handshake, System.nanoTime())) {
                return false;
            }
            why = ended ? "the thread it was opened for (" + use.ownerName() + ") has ended, and nothing of it was in use"
                    : use.describeStranded();
            if (why == null) {
                return false;
            }
            use.markAbandoned(why); // a connect called meanwhile on another thread is refused, not closed under it
        } finally {
            endpoint.unlock();
        }
        if (!ended) {
            LOG.log(System.Logger.Level.WARNING, "closing the endpoint of thread {0}, which nothing uses: {1}",
                    use.ownerName(), why);
        }
        try {
            close(device);
        } catch (RdmaException e) {
            LOG.log(System.Logger.Level.WARNING, "closing the endpoint of thread {0}: {1}", use.ownerName(),
                    e.getMessage());
        }
        return true;
    }

    /** Runs a step of opening the endpoint; when it fails, closes what is open and throws. */
    <T> T opening(Device device, RdmaEndpoint.Step<T> step) throws RdmaException {
        try {
            return step.run();
        } catch (FabricException | RuntimeException e) {
            RdmaException failure = new RdmaException(ErrorCategory.SYSTEM, "opening an endpoint on device "
                    + device.spec().name() + ": " + e.getMessage(), e);
            closeResources(device.registrar(), failure);
            throw failure;
        } catch (RdmaException e) {
            closeResources(device.registrar(), e);
            throw e;
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
     * for their peers within one {@code peerTimeoutMs}, and the receive communicators for the
     * provider's answers to their cancels within one more.
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
        // One bound for them all: a stopped peer holds the endpoint's close for peerTimeoutMs at
        // most, however many communicators it has.
        long deadline = System.nanoTime() + peerTimeoutNanos;
        for (ListenComm listen : listens) {
            closing.closeListen(listen, deadline);
        }
        RdmaException failure = null;
        for (SendComm comm : sends) {
            try {
                closing.closeSend(comm, deadline);
            } catch (RdmaException e) {
                failure = Device.add(failure, e);
            }
        }
        closing.closeRecvs(recvs, deadline);
        return failure;
    }
}
