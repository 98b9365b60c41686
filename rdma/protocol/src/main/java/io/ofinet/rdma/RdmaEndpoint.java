package io.ofinet.rdma;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.mr.DomainContext;
import io.ofinet.mr.MrException;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Use;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A protocol endpoint: one libfabric endpoint per data rail and one per control rail (on the
 * domain of its data rail), each with its completion queue and address vector; the registration
 * view of those rails; the progress engine over their queues; the flush buffer and the
 * control-buffer freelist, registered for this endpoint's rails. Listen, send and receive
 * communicators hang off it.
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
    private static final int CQ_SIZE = 4096;
    private static final int AV_SIZE = 256;
    private static final long FLUSH_BYTES = 64;
    /** Bytes each flush read fetches. */
    static final long FLUSH_READ_BYTES = 8;
    /** Data-path operations per endpoint at most. */
    private static final int MAX_OPS = 8192;
    /** Control buffers per endpoint at most (4 KiB each, made as needed). */
    private static final int MAX_CONTROL_BUFFERS = 4096;

    /** Native memory for freelist blocks. */
    static final Freelist.BlockMemory NATIVE = new Freelist.BlockMemory() {
        @Override
        public long allocate(long bytes) {
            return NativeMemory.allocate(bytes);
        }

        @Override
        public void free(long address) {
            NativeMemory.free(address);
        }
    };

    private final Device device;
    private final DeviceSpec spec;
    private final DeviceParameters params;
    private final List<CompletionQueue> queues = new ArrayList<>();
    private final List<AddressVector> avs = new ArrayList<>();
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final int dataRails;
    private final int controlRails;
    private Rails rails;
    private ProgressEngine engine;
    private Peers peers;
    private final ReentrantLock lock;
    private final SlowDuties duties;
    private long flushBuffer;
    private MrHandle flushMr;
    private Freelist<ControlBuffer> controlBuffers;
    private Freelist<RmaOp> ops;
    private long[] self;
    private boolean wideImmediate;
    private final byte[] scratch = new byte[ControlBuffer.BYTES];
    private final IdAllocator sendIds = new IdAllocator(Limits.MAX_COMMS, "send communicator ids");
    private final IdAllocator recvIds = new IdAllocator(Limits.MAX_COMMS, "receive communicator ids");
    /** Communicators by id: arrays, so that finding one for a completion allocates nothing. */
    private final SendComm[] sends = new SendComm[Limits.MAX_COMMS];
    private final RecvComm[] recvs = new RecvComm[Limits.MAX_COMMS];
    /** Connected communicators, walked by index from progress so that progress allocates nothing. */
    private final List<SendComm> sendList = new ArrayList<>();
    private final List<RecvComm> recvList = new ArrayList<>();
    private final Handshake handshake;
    private final Arrivals arrivals;
    private boolean closed;

    RdmaEndpoint(Device device) throws RdmaException {
        this.device = device;
        this.spec = device.spec();
        this.params = spec.parameters();
        this.dataRails = spec.dataRails().size();
        this.controlRails = spec.controlRails().size();
        this.handshake = new Handshake(this, dataRails, controlRails);
        this.arrivals = new Arrivals(this, dataRails);
        this.lock = device.domainLock() != null ? device.domainLock() : new ReentrantLock();
        this.duties = new SlowDuties(this, params.peerTimeoutMs());
        try {
            List<DomainContext> contexts = device.contexts();
            List<Endpoint> dataEndpoints = new ArrayList<>();
            List<Endpoint> controlEndpoints = new ArrayList<>();
            int[] controlOnData = new int[controlRails];
            for (int r = 0; r < dataRails; r++) {
                dataEndpoints.add(openRail(contexts.get(r).domain()));
            }
            for (int c = 0; c < controlRails; c++) {
                controlOnData[c] = spec.controlRails().get(c).dataRail();
                controlEndpoints.add(openRail(contexts.get(controlOnData[c]).domain()));
            }
            rails = new Rails(contexts, dataEndpoints, controlEndpoints, controlOnData);
            engine = new ProgressEngine(queues, params.cqReadCount(), params.postRetryTimeoutMs() * 1_000_000L,
                    arrivals::remoteData);
            peers = new Peers(avs, dataRails);
            flushBuffer = NativeMemory.allocate(FLUSH_BYTES);
            flushMr = device.registrar().register(rails, flushBuffer, FLUSH_BYTES, Use.FLUSH_BUFFER);
            int minPosted = (int) (long) params.get(io.ofinet.config.Parameter.RDMA_MIN_POSTED_CONTROL_BUFFERS);
            int maxPosted = (int) (long) params.get(io.ofinet.config.Parameter.RDMA_MAX_POSTED_CONTROL_BUFFERS);
            controlBuffers = Freelist.<ControlBuffer>builder("control buffers",
                    (block, address) -> new ControlBuffer(this, block, address))
                    // Each outstanding receive holds one until its control message is written: room for
                    // many communicators, so that peers that do not answer cannot starve the others.
                    .sizes(minPosted, minPosted, Math.max(maxPosted + minPosted, MAX_CONTROL_BUFFERS))
                    .nativeEntries(ControlBuffer.BYTES, 64, NATIVE)
                    .registered(new Freelist.BlockRegistrar() {
                        @Override
                        public Object register(long address, long bytes) throws RdmaException {
                            return registerInternal(address, bytes, Use.CONTROL_BUFFERS);
                        }

                        @Override
                        public void deregister(Object handle) throws RdmaException {
                            deregisterInternal((MrHandle) handle);
                        }
                    })
                    .hooks(buffer -> {
                        engine.register(buffer.receive);
                        engine.register(buffer.send);
                    }, buffer -> { })
                    .build();
            for (int i = 0; i < minPosted; i++) {
                engine.submit(controlBuffers.acquire().receive, peers.local(dataRails));
            }
            ops = Freelist.<RmaOp>builder("data-path operations", (block, address) -> new RmaOp(this))
                    .sizes(256, 256, MAX_OPS).hooks(engine::register, op -> { }).build();
            self = new long[dataRails];
            wideImmediate = true;
            for (int r = 0; r < dataRails; r++) {
                self[r] = avs.get(r).insert(endpoints.get(r).name());
                wideImmediate &= contexts.get(r).info().cqDataSizeBytes() >= 8;
            }
        } catch (FabricException | MrException | RuntimeException e) {
            RdmaException failure = new RdmaException(ErrorCategory.SYSTEM, "opening an endpoint on device "
                    + spec.name() + ": " + e.getMessage(), e);
            closeResources(failure);
            throw failure;
        } catch (RdmaException e) {
            closeResources(e);
            throw e;
        }
    }

    private Endpoint openRail(Domain domain) throws FabricException {
        CompletionQueue cq = domain.openCompletionQueue(CQ_SIZE);
        queues.add(cq);
        AddressVector av = domain.openAddressVector(AV_SIZE);
        avs.add(av);
        Endpoint ep = domain.openEndpoint(cq, av);
        endpoints.add(ep);
        ep.enable();
        return ep;
    }

    MrHandle registerInternal(long address, long bytes, Use use) throws RdmaException {
        try {
            return device.registrar().register(rails, address, bytes, use);
        } catch (MrException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e);
        }
    }

    private static void deregisterInternal(MrHandle handle) throws RdmaException {
        try {
            handle.close();
        } catch (MrException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e);
        }
    }

    // ---- accessors for the protocol's parts ----

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
        return rails;
    }

    ProgressEngine engine() {
        return engine;
    }

    Endpoint controlEndpoint(int rail) {
        return endpoints.get(dataRails + rail);
    }

    Endpoint dataEndpoint(int rail) {
        return endpoints.get(rail);
    }

    /**
     * Registers an application buffer for this endpoint's rails (cached where the layout allows).
     * May come from any thread: in endpoint scope a registration is bound to this endpoint's rails.
     */
    public MrHandle registerUserBuffer(long address, long length) throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            return registerInternal(address, length, Use.USER_BUFFER);
        } finally {
            lock.unlock();
        }
    }

    /** Releases a registration made by {@link #registerUserBuffer}; may come from any thread. */
    public void deregisterUserBuffer(MrHandle handle) throws RdmaException {
        lock.lock();
        try {
            deregisterInternal(handle);
        } finally {
            lock.unlock();
        }
    }

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

    /** The queue of posts to {@code fiAddr} on engine rail {@code rail} (data rails, then control rails). */
    PeerQueue peerQueue(int rail, long fiAddr) {
        return peers.queue(rail, fiAddr);
    }

    /** The queue of posts to no peer on engine rail {@code rail}: receives, reads through the own address. */
    PeerQueue localQueue(int rail) {
        return peers.local(rail);
    }

    /** The device this endpoint belongs to. */
    public Device device() {
        return device;
    }

    /** The flush buffer's registration (data rails). */
    public MrHandle flushBuffer() {
        return flushMr;
    }

    byte[] scratch() {
        return scratch;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Drives progress: one bounded step over every rail, the queued sends, and — when due — the
     * slow duties (keepalives, liveness, stalls, quarantine). Takes the endpoint for that step.
     */
    public int progress() throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            int handled = engine.progress();
            for (int i = 0; i < sendList.size(); i++) {
                SendComm comm = sendList.get(i);
                if (comm.connectedAndOpen() && comm.liveness().dead == null) {
                    comm.progressSends();
                    if (comm.peerClosing && !comm.writesInFlight()) {
                        comm.sendClosedNotice();
                    }
                }
            }
            duties.runIfDue(sendList, recvList);
            return handled;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Posts {@code op} as a zero-byte send with immediate data {@code word} to {@code peer} on
     * control rail 0, through that destination's queue.
     */
    void sendNotice(RmaOp op, String what, int word, long peer, PeerQueue queue, RmaOp.Owner owner) {
        op.set(RmaOp.Kind.SENDDATA, controlEndpoint(0), 0, what, owner);
        op.buf = 0;
        op.len = 0;
        op.desc = 0;
        op.data = immediate(word, 0);
        op.peer = peer;
        engine.submit(op, queue);
    }

    /** Whether the upper 32 bits of CQ data carry a segment's length (8-byte CQ data on every rail). */
    boolean wideImmediate() {
        return wideImmediate;
    }

    /** The immediate data of a write: the 32-bit word, and the segment length above it where CQ data has 8 bytes. */
    long immediate(int word, long segmentLength) {
        return wideImmediate ? segmentLength << 32 | (word & 0xffffffffL) : word & 0xffffffffL;
    }

    /** This endpoint's own address on data rail {@code rail}: the flush reads through it. */
    long self(int rail) {
        return self[rail];
    }

    /** A pooled data-path operation, or null when all are in flight. */
    RmaOp acquireOp() {
        try {
            return ops.acquire();
        } catch (RdmaException e) {
            return null;
        }
    }

    /** Takes {@code n} free operations into {@code into[0..n)}, all or none; false when short. */
    boolean acquireOps(RmaOp[] into, int n) {
        for (int i = 0; i < n; i++) {
            into[i] = acquireOp();
            if (into[i] == null) {
                for (int k = 0; k < i; k++) {
                    releaseOp(into[k]);
                }
                return false;
            }
        }
        return true;
    }

    void releaseOp(RmaOp op) {
        if (!closed) {
            ops.release(op);
        }
    }

    /** A free control buffer, or null. */
    ControlBuffer acquireControlBuffer() throws RdmaException {
        return controlBuffers.acquire();
    }

    void requireOpen() throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closed");
        }
    }

    // ---- listen / connect / accept: the Handshake ----

    /** A listening communicator; its handle goes to the peers that connect. */
    public ListenComm listen() throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            return handshake.listen();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Connects to a listener. Returns null until the listener has accepted; call again with the
     * same handle.
     *
     * @throws RdmaException INVALID_ARGUMENT for a handle that does not decode, INVALID_USAGE for
     *     rail counts that differ, REMOTE when the listener refuses or does not answer in time
     */
    public SendComm connect(byte[] handle) throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            return handshake.connect(handle);
        } finally {
            lock.unlock();
        }
    }

    /** The next accepted connection on {@code listen}, or null for now. */
    public RecvComm accept(ListenComm listen) throws RdmaException {
        lock.lock();
        try {
            requireOpen();
            return handshake.accept(listen);
        } finally {
            lock.unlock();
        }
    }

    /** A handshake message arrived on the first control rail. */
    void onHandshake(byte[] bytes, int length) {
        handshake.onMessage(bytes, length);
    }

    // ---- the communicators, for the handshake, the arrivals and closing ----

    DeviceParameters params() {
        return params;
    }

    AddressVector av(int index) {
        return avs.get(index);
    }

    /** Names of the endpoints {@code from} to {@code from + count - 1} (data rails first, then control). */
    List<byte[]> names(int from, int count) throws FabricException {
        List<byte[]> names = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            names.add(endpoints.get(i).name());
        }
        return names;
    }

    MrHandle registerMailbox(long address, long bytes) throws RdmaException {
        return registerInternal(address, bytes, Use.CONTROL_MAILBOX);
    }

    int newSendId() throws RdmaException {
        return sendIds.allocate();
    }

    int newRecvId() throws RdmaException {
        return recvIds.allocate();
    }

    void freeSendId(int id) {
        sendIds.free(id);
    }

    SendComm sendComm(int id) {
        return sends[id];
    }

    void addSend(SendComm comm) {
        sends[comm.id()] = comm;
    }

    void removeSend(int id) {
        sends[id] = null;
    }

    void addRecv(RecvComm comm) {
        recvs[comm.id()] = comm;
    }

    /** Connected: walked by progress from now on. */
    void connected(SendComm comm) {
        sendList.add(comm);
    }

    void connected(RecvComm comm) {
        recvList.add(comm);
    }

    /** A send with immediate data arrived on a control rail: a zero-byte message or a refusal. */
    void onNotice(int rail, long len, long data) {
        arrivals.notice(rail, len, data);
    }

    RecvComm recvComm(int id) {
        return recvs[id];
    }

    void onReceiveFailed(ControlBuffer.Receive receive, RdmaException cause) {
        if (!closed) {
            LOG.log(Level.WARNING, "a handshake receive failed: {0}", cause.getMessage());
        }
    }

    void release(ControlBuffer buffer) {
        if (!closed) {
            controlBuffers.release(buffer);
        }
    }

    // ---- closing ----

    void closeListen(ListenComm listen) {
        lock.lock();
        try {
            if (listen.closed) {
                return;
            }
            listen.closed = true;
            handshake.forget(listen);
            for (RecvComm comm : listen.ready) {
                discard(comm);
            }
            listen.ready.clear();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes a send communicator: its writes in flight drain first (at most peerTimeoutMs, while
     * the peer is alive), so that the application may then deregister the buffers they read from,
     * and the receiver is told that no more come. Waits one progress step at a time, never
     * holding the endpoint in between.
     */
    void closeSend(SendComm comm) throws RdmaException {
        long deadline = System.nanoTime() + params.peerTimeoutMs() * 1_000_000L;
        while (!closeSendStep(comm, deadline)) {
            Thread.yield();
        }
    }

    /** One step of {@link #closeSend}; true when the communicator is closed. */
    private boolean closeSendStep(SendComm comm, long deadline) throws RdmaException {
        lock.lock();
        try {
            if (comm.closed) {
                return true;
            }
            comm.failQueued(new RdmaException(ErrorCategory.INVALID_USAGE, "the send communicator was closed"));
            boolean live = !closed && comm.connectedAndOpen() && comm.liveness().dead == null;
            if (live && comm.writesInFlight() && System.nanoTime() < deadline) {
                progress();
                return false;
            }
            if (live) {
                comm.sendClosedNotice();
                progress();
            }
            comm.closed = true;
            sends[comm.id()] = null;
            sendList.remove(comm);
            sendIds.free(comm.id());
            handshake.forget(comm);
            comm.forgetPeers();
            // The receiver may still write control messages into the mailbox: keep it registered
            // for a while, so that such a write never meets a missing key (which breaks rxm
            // connections).
            duties.quarantine(comm);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes a receive communicator. With receives outstanding, the sender may still write into
     * their buffers: it is told that this side closes, and the close waits — one progress step at
     * a time, at most peerTimeoutMs — until it confirms that it writes no more, so that the
     * application may then deregister the buffers.
     */
    void closeRecv(RecvComm comm) {
        boolean waiting = false;
        lock.lock();
        try {
            if (!comm.closed && comm.connectedAndOpen() && comm.outstanding() > 0 && comm.liveness().dead == null
                    && !closed) {
                RmaOp op = acquireOp();
                if (op != null) {
                    sendNotice(op, "close notice", Immediate.encode(Immediate.TYPE_KEEPALIVE, 1,
                            Immediate.RECEIVER_CLOSING, comm.peerCommId(), 0), comm.controlPeer(0), comm.controlQueue(0),
                            comm.liveness());
                    waiting = true;
                }
            }
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + params.peerTimeoutMs() * 1_000_000L;
        while (waiting && System.nanoTime() < deadline) {
            lock.lock();
            try {
                waiting = !closed && !comm.closed && !comm.senderClosed && comm.liveness().dead == null;
                if (waiting) {
                    progress();
                }
            } catch (RdmaException e) {
                LOG.log(Level.WARNING, "closing a receive communicator: {0}", e.getMessage());
                waiting = false;
            } finally {
                lock.unlock();
            }
            Thread.yield();
        }
        lock.lock();
        try {
            discard(comm);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets a receive communicator: its id is free again and progress no longer walks it. */
    void discard(RecvComm comm) {
        if (comm.closed) {
            return;
        }
        comm.closed = true;
        recvs[comm.id()] = null;
        recvList.remove(comm);
        recvIds.free(comm.id());
        comm.forgetPeers();
    }

    /**
     * Closes every communicator, then the registrations bound to this endpoint's rails, then the
     * endpoints, address vectors and queues. Closing twice is harmless.
     */
    @Override
    public void close() throws RdmaException {
        List<ListenComm> listens;
        List<SendComm> open = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            listens = handshake.listens();
            for (SendComm comm : sends) {
                if (comm != null) {
                    open.add(comm);
                }
            }
        } finally {
            lock.unlock();
        }
        RdmaException failure = null;
        for (ListenComm listen : listens) {
            closeListen(listen);
        }
        for (SendComm comm : open) {
            try {
                closeSend(comm);
            } catch (RdmaException e) {
                failure = Device.add(failure, e);
            }
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            for (RecvComm comm : recvs) {
                if (comm != null) {
                    discard(comm);
                }
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

    /** Closes {@code resource} when there is one, adding its failure to {@code problems}. */
    private static void close(AutoCloseable resource, List<Exception> problems) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            problems.add(e);
        }
    }

    /**
     * Registrations first (they may be bound to the endpoints), then endpoints, AVs, queues. What
     * fails is added to {@code primary} when there is one, and returned otherwise.
     */
    private RdmaException closeResources(Exception primary) {
        List<Exception> problems = new ArrayList<>();
        close(ops, problems);
        close(controlBuffers, problems);
        close(flushMr, problems);
        try {
            if (rails != null && rails.anyEndpointScope()) {
                // Registrations bound to this endpoint's rails close before it, whoever forgot them.
                int left = device.registrar().closeAll(rails);
                if (left > 0) {
                    LOG.log(Level.WARNING, "deregistered {0} buffers still registered for an endpoint at its close",
                            left);
                }
            }
        } catch (MrException e) {
            problems.add(e);
        }
        for (List<? extends AutoCloseable> group : List.of(endpoints, avs, queues)) {
            for (int i = group.size() - 1; i >= 0; i--) {
                close(group.get(i), problems);
            }
        }
        NativeMemory.free(flushBuffer);
        flushBuffer = 0;
        if (primary != null) {
            problems.forEach(primary::addSuppressed);
            return null;
        }
        if (problems.isEmpty()) {
            return null;
        }
        RdmaException failure = new RdmaException(ErrorCategory.SYSTEM, "closing an endpoint: "
                + problems.get(0).getMessage(), problems.get(0));
        problems.subList(1, problems.size()).forEach(failure::addSuppressed);
        return failure;
    }
}
