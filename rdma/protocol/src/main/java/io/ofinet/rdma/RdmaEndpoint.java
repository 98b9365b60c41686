package io.ofinet.rdma;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.MrException;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Use;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.progress.ProgressEngine;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A protocol endpoint: its rails ({@link RailSet}), the progress engine over their queues and the
 * queues of its peers ({@link Peers}), its pools ({@link EndpointPools}), its communicators
 * ({@link CommTable}, {@link Handshake}, {@link CommClosing}) and its slow duties. Listen, send and
 * receive communicators hang off it.
 *
 * <p>{@link #listen}, {@link #connect} and {@link #accept} never block: connect and accept return
 * null until the handshake completes and are called again (connect with the same handle). Each
 * call drives progress.
 *
 * <p><b>Ownership.</b> Everything of an endpoint — its progress engine and peer queues, operation
 * and control-buffer freelists, communicator tables, the state of its communicators and their
 * requests, its completion queues — has one owner at a time: the thread that holds the endpoint's
 * lock. Every entry point (listen, connect, accept, isend, irecv, iflush, test, register,
 * deregister, the closes and {@link #progress}) takes the lock for one bounded step and lets it
 * go before it returns, so communicators sharing the endpoint may be driven from different
 * threads. Nothing waits while holding it: a close that waits for its peer takes the lock once per
 * progress step. When the provider grants less than FI_THREAD_SAFE the lock is the device's, held
 * by all its endpoints alike ({@link Device}). No thread of ofinet's own drives progress.
 */
public final class RdmaEndpoint implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RdmaEndpoint.class.getName());
    /** Bytes each flush read fetches. */
    static final long FLUSH_READ_BYTES = 8;

    private final Device device;
    private final DeviceSpec spec;
    private final DeviceParameters params;
    private final int dataRails;
    private final int controlRails;
    private final ReentrantLock lock;
    private final RailSet rails;
    private final HostMemory memory;
    private final EndpointPools pools;
    private final CommTable comms = new CommTable();
    private final Handshake handshake;
    private final ImmediateDispatcher immediates;
    private final SlowDuties duties;
    private final CommClosing closing;
    private ProgressEngine engine;
    private Peers peers;
    private boolean closed;

    RdmaEndpoint(Device device) throws RdmaException {
        this.device = device;
        this.spec = device.spec();
        this.params = spec.parameters();
        this.dataRails = spec.dataRails().size();
        this.controlRails = spec.controlRails().size();
        this.lock = device.domainLock() != null ? device.domainLock() : new ReentrantLock();
        this.rails = new RailSet(dataRails);
        this.memory = device.memory();
        this.pools = new EndpointPools(this, memory, device.registrar());
        this.handshake = new Handshake(this, dataRails, controlRails);
        this.immediates = new ImmediateDispatcher(this, dataRails);
        this.duties = new SlowDuties(this, params.peerTimeoutMs());
        this.closing = new CommClosing(this, comms, handshake, duties, params.peerTimeoutMs());
        try {
            int[] controlOnData = new int[controlRails];
            for (int c = 0; c < controlRails; c++) {
                controlOnData[c] = spec.controlRails().get(c).dataRail();
            }
            rails.open(device.contexts(), controlOnData);
            engine = new ProgressEngine(rails.queues(), params.cqReadCount(), params.postRetryTimeoutMs() * 1_000_000L,
                    immediates::remoteData);
            peers = new Peers(rails.avs(), dataRails);
            pools.open(engine, params);
        } catch (FabricException | RuntimeException e) {
            RdmaException failure = new RdmaException(ErrorCategory.SYSTEM, "opening an endpoint on device "
                    + spec.name() + ": " + e.getMessage(), e);
            closeResources(failure);
            throw failure;
        } catch (RdmaException e) {
            closeResources(e);
            throw e;
        }
    }

    /**
     * Registers an application buffer for this endpoint's rails (cached where the layout allows).
     * May come from any thread: in endpoint scope a registration is bound to this endpoint's rails.
     */
    public MrHandle registerUserBuffer(long address, long length) throws RdmaException {
        return whileOpen(() -> pools.register(address, length, Use.USER_BUFFER));
    }

    /** Releases a registration made by {@link #registerUserBuffer}; may come from any thread. */
    public void deregisterUserBuffer(MrHandle handle) throws RdmaException {
        lock.lock();
        try {
            EndpointPools.deregister(handle);
        } finally {
            lock.unlock();
        }
    }

    /** A step of the control path, run with the endpoint held. */
    @FunctionalInterface
    private interface Step<T> {
        T run() throws RdmaException;
    }

    /** Runs {@code step} holding the endpoint, which must be open (control path: it may allocate). */
    private <T> T whileOpen(Step<T> step) throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            return step.run();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drives progress: one bounded step over every rail, the queued sends, and — when due — the
     * slow duties (keepalives, liveness, stalls, quarantine). Takes the endpoint for that step.
     */
    public int progress() throws RdmaException {
        lock.lock();
        try {
            return progressLocked();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #progress} for a caller that holds the endpoint already: one lock per call on the data path. */
    int progressLocked() throws RdmaException {
        requireOpen();
        int handled = engine.progress();
        List<SendComm> sends = comms.connectedSends();
        for (int i = 0; i < sends.size(); i++) {
            sends.get(i).progress();
        }
        duties.runIfDue(sends, comms.connectedRecvs());
        return handled;
    }

    /** A listening communicator; its handle goes to the peers that connect. */
    public ListenComm listen() throws RdmaException {
        return whileOpen(handshake::listen);
    }

    /**
     * Connects to a listener. Returns null until the listener has accepted; call again with the
     * same handle.
     *
     * @throws RdmaException INVALID_ARGUMENT for a handle that does not decode, INVALID_USAGE for
     *     rail counts that differ, REMOTE when the listener refuses or does not answer in time
     */
    public SendComm connect(byte[] handle) throws RdmaException {
        return whileOpen(() -> handshake.connect(handle));
    }

    /** The next accepted connection on {@code listen}, or null for now. */
    public RecvComm accept(ListenComm listen) throws RdmaException {
        return whileOpen(() -> handshake.accept(listen));
    }

    // ---- for the protocol's parts ----

    /** Takes the endpoint for one bounded step; see the class comment. */
    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /** Whether calls on this endpoint and on {@code other} exclude each other (one lock). */
    boolean sharesOwnershipWith(RdmaEndpoint other) {
        return lock == other.lock;
    }

    public DeviceSpec spec() {
        return spec;
    }

    public int dataRails() {
        return dataRails;
    }

    public int controlRails() {
        return controlRails;
    }

    /** The device this endpoint belongs to. */
    public Device device() {
        return device;
    }

    /** The registration view of this endpoint's rails. */
    public Rails rails() {
        return rails.registrationView();
    }

    /** The flush buffer's registration (data rails). */
    public MrHandle flushBuffer() {
        return pools.flushBuffer();
    }

    DeviceParameters params() {
        return params;
    }

    /** Host memory as the provider's data path reads and writes it. */
    HostMemory memory() {
        return memory;
    }

    RailSet railSet() {
        return rails;
    }

    EndpointPools pools() {
        return pools;
    }

    CommTable comms() {
        return comms;
    }

    CommClosing closing() {
        return closing;
    }

    Handshake handshake() {
        return handshake;
    }

    ImmediateDispatcher immediates() {
        return immediates;
    }

    ProgressEngine engine() {
        return engine;
    }

    /** The destinations of this endpoint's posts, with their queues. */
    Peers peers() {
        return peers;
    }

    boolean isClosed() {
        return closed;
    }

    void requireOpen() throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closed");
        }
    }

    /**
     * Closes every communicator (each close waiting for its peer as {@link CommClosing} says),
     * then the registrations bound to this endpoint's rails, then the rails. Closing twice is
     * harmless.
     */
    @Override
    public void close() throws RdmaException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
        } finally {
            lock.unlock();
        }
        RdmaException failure = closing.closeAll();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            duties.release(0, true);
            closed = true;
            RdmaException resources = closeResources(null);
            device.closed(this);
            failure = resources == null ? failure : Device.add(failure, resources);
        } finally {
            lock.unlock();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Pools first, then what the application left registered for these rails, then the rails.
     * What fails is added to {@code primary} when there is one, and returned otherwise.
     */
    private RdmaException closeResources(Exception primary) {
        List<Exception> problems = new ArrayList<>();
        pools.close(problems);
        rails.close(device.registrar(), problems);
        if (primary != null) {
            problems.forEach(primary::addSuppressed);
            return null;
        }
        return problems.isEmpty() ? null : RdmaException.collected(ErrorCategory.SYSTEM, "closing an endpoint", problems);
    }
}
