package io.ofinet.rdma;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.OpCounts;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.rail.Peers;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A protocol endpoint: its rails ({@link RailSet}), the progress engine over their queues and the queues of its
 * peers ({@link Peers}), its pools ({@link EndpointPools}), its communicators ({@link CommTable}, {@link
 * Handshake}, {@link CommClosing}), its own close ({@link EndpointClosing}), its step ({@link EndpointStep}) and
 * its slow duties. Listen, send and receive communicators hang off it.
 *
 * <p>{@link #listen}, {@link #connect} and {@link #accept} never block: connect and accept return
 * null until the handshake completes and are called again (connect with the same handle). Each
 * call drives progress.
 *
 * <p>Ownership: one thread at a time holds the endpoint for one bounded step (see the package).
 */
public final class RdmaEndpoint implements AutoCloseable {
    // The parts, fixed at construction: the protocol's classes use them holding the endpoint.
    final DeviceParameters params;
    final RailSet railSet;
    final EndpointPools pools;
    final CommTable comms = new CommTable();
    final Handshake handshake;
    final ImmediateDispatcher immediates;
    final CommClosing closing;
    private final EndpointClosing endpointClosing;
    final ProgressEngine engine;
    /** The destinations of this endpoint's posts, with their queues. */
    final Peers peers;
    /** The endpoint as its communicators see it. */
    final EndpointHost host = new EndpointHost(this);
    /** What its communicators are given; made once the pools are open. */
    final CommParts commParts;

    private final Device device;
    private final DeviceSpec spec;
    private final int dataRails;
    private final int controlRails;
    private final ReentrantLock lock;
    /** Its thread, the buffers registered for it, what is stranded: whether nothing will use it again. */
    private final EndpointUse use;
    /** Keepalives, peer checks, quarantine; the watchdog looks at when they last ran. */
    final SlowDuties duties;
    private final EndpointStep step;
    private volatile boolean closed;

    RdmaEndpoint(Device device, Thread owner) throws RdmaException {
        this.device = device;
        this.use = new EndpointUse(owner);
        this.spec = device.spec();
        this.params = spec.parameters();
        this.dataRails = spec.dataRails().size();
        this.controlRails = spec.controlRails().size();
        this.lock = device.domainLock() != null ? device.domainLock() : new ReentrantLock();
        HostMemory memory = device.memory();
        this.railSet = new RailSet(dataRails);
        this.pools = new EndpointPools(railSet, dataRails, controlRails, memory, device.registrar());
        this.handshake = new Handshake(this, dataRails, controlRails);
        this.duties = new SlowDuties(memory, pools, params.peerTimeoutMs());
        this.immediates = new ImmediateDispatcher(comms, railSet, duties, host, dataRails);
        this.closing = new CommClosing(this, pools, comms, handshake, duties, use, params.peerTimeoutMs());
        this.endpointClosing = new EndpointClosing(this, closing, memory, pools, railSet, comms, handshake, duties,
                use, params.peerTimeoutMs());
        guarded(() -> {
            railSet.open(device.contexts(), spec.controlRails(), params.writeNotice());
            return null;
        });
        this.engine = new ProgressEngine(railSet.queues(), params.cqReadCount(),
                params.postRetryTimeoutMs() * 1_000_000L, immediates::remoteData);
        railSet.trustSources(engine);
        this.peers = guarded(() -> new Peers(railSet, dataRails));
        duties.open(peers);
        guarded(() -> {
            pools.open(engine, params, host, immediates, handshake);
            return null;
        });
        this.commParts = new CommParts(host, memory, railSet, dataRails, controlRails, peers, pools.ops, pools,
                pools.eager, pools.flushBuffer(), params);
        handshake.open(new HandshakeParts(comms, engine, pools, commParts, closing, duties));
        this.step = new EndpointStep(engine, handshake, comms, duties);
        if (pools.eager.enabled()) {
            // Small messages need nothing from the control rails: those are read every
            // QUIET_EVERY steps unless something is awaited there (docs/PERFORMANCE.md).
            engine.quietRailsFrom(dataRails, EndpointStep.QUIET_EVERY);
        }
        Watchdog.watch(this);
    }

    /** A step of opening the endpoint, or of the setup path. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws FabricException, RdmaException;
    }

    /** Runs a step of opening; when it fails, closes what is open and throws. */
    private <T> T guarded(Step<T> step) throws RdmaException {
        return endpointClosing.opening(device, step);
    }

    /**
     * Registers an application buffer for this endpoint's rails (cached where the layout allows).
     * May come from any thread: in endpoint scope a registration is bound to this endpoint's rails.
     */
    public MrHandle registerUserBuffer(long address, long length) throws RdmaException {
        return whileOpen(() -> {
            MrHandle handle = pools.register(address, length, Use.USER_BUFFER);
            use.registered();
            return handle;
        });
    }

    /** Releases a registration made by {@link #registerUserBuffer}; may come from any thread. */
    public void deregisterUserBuffer(MrHandle handle) throws RdmaException {
        lock.lock();
        try {
            use.deregistered();
            EndpointPools.deregister(handle);
        } finally {
            lock.unlock();
        }
        closeIfAbandoned();
    }

    /** Runs {@code step} holding the endpoint, which must be open (setup path: it may allocate). */
    private <T> T whileOpen(Step<T> step) throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            use.requireNotAbandoned();
            return step.run();
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e);
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
        return step(false);
    }

    /** {@link #progressLocked} reading every rail's queue: for waits on a peer's signals (closes, the watchdog). */
    int progressEveryRail() throws RdmaException {
        return step(true);
    }

    private int step(boolean everyRail) throws RdmaException {
        requireOpen();
        return step.run(everyRail);
    }

    /** Reads the queues once, without the rest of a step (the handshake's waits). */
    int readQueues() throws RdmaException {
        return step.readQueues();
    }

    /** Posts {@code receive} again at the start of the next step. */
    void repostNextStep(KeptReceive receive) {
        step.reposts.add(receive);
    }

    /** When the current (or last) reading of the queues began: the time of what arrives in it. */
    long stepNanos() {
        return step.nanos();
    }

    /** A send communicator waits for an announcement or credits: the next step reads the control rails. */
    void expectAnnouncement() {
        step.expectAnnouncement();
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

    /** Whether its slow duties ran within {@code nanos} before {@code now} (the watchdog asks, without holding it). */
    boolean progressedWithin(long now, long nanos) {
        return duties.ranWithin(now, nanos);
    }

    /** Closes a listen communicator of this endpoint (see {@link CommClosing#closeListen}). */
    void closeListen(ListenComm listen) {
        closing.closeListen(listen);
    }

    /** Takes the endpoint if no one holds it (the watchdog, which never waits). */
    boolean tryLock() {
        return lock.tryLock();
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

    /** The registration view of this endpoint's rails. */
    public Rails rails() {
        return railSet.registrationView();
    }

    /** The flush buffer's registration (data rails). */
    public MrHandle flushBuffer() {
        return pools.flushBuffer();
    }

    /** What it moved, refused and dropped since it opened (a snapshot; takes the endpoint). */
    public EndpointStatistics statistics() {
        lock.lock();
        try {
            return EndpointStatistics.of(pools.counts, engine, immediates, handshake, peers, duties);
        } finally {
            lock.unlock();
        }
    }

    /** Operations posted and completed, by kind. */
    public OpCounts counts() {
        return pools.counts;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Whether it closes, or has closed, as one nothing will use again ({@link #closeIfAbandoned}). */
    public boolean isAbandoned() {
        return use.abandoned();
    }

    /** Closes it if nothing will use it again ({@link EndpointClosing#closeIfAbandoned}); never waits. */
    boolean closeIfAbandoned() {
        return endpointClosing.closeIfAbandoned(device);
    }

    void requireOpen() throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closed");
        }
    }

    /**
     * Closes every communicator (each close waiting for its peer as {@link CommClosing} says), then
     * the registrations bound to this endpoint's rails, then the rails ({@link EndpointClosing}).
     * Closing twice is harmless.
     */
    @Override
    public void close() throws RdmaException {
        endpointClosing.close(device);
    }

    /** Marks the endpoint closed; the caller holds it. */
    void markClosed() {
        closed = true;
        step.clear();
        Watchdog.unwatch(this);
    }
}
