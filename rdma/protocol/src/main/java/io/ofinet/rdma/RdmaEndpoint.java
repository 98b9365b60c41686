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
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * A protocol endpoint: one libfabric endpoint per data rail and one per control rail (on the
 * domain of its data rail), each with its completion queue and address vector; the registration
 * view of those rails; the progress engine over their queues; the flush buffer and the
 * control-buffer freelist, registered for this endpoint's rails. Listen, send and receive
 * communicators hang off it.
 *
 * <p>{@link #listen}, {@link #connect} and {@link #accept} never block: connect and accept return
 * null until the handshake completes and are called again (connect with the same handle). Each
 * call drives progress. Methods are synchronized, so that they may come from any thread.
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
    private long nextLivenessCheck;
    /** Mailboxes of closed send communicators, kept registered a while for late control writes. */
    private final java.util.ArrayDeque<SendComm> quarantine = new java.util.ArrayDeque<>();
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
            engine = new ProgressEngine(queues, params.cqReadCount(), arrivals::remoteData);
            flushBuffer = NativeMemory.allocate(FLUSH_BYTES);
            flushMr = device.registrar().register(rails, flushBuffer, FLUSH_BYTES, Use.FLUSH_BUFFER);
            int minPosted = (int) (long) params.get(io.ofinet.config.Parameter.RDMA_MIN_POSTED_CONTROL_BUFFERS);
            int maxPosted = (int) (long) params.get(io.ofinet.config.Parameter.RDMA_MAX_POSTED_CONTROL_BUFFERS);
            controlBuffers = Freelist.<ControlBuffer>builder("control buffers",
                    (block, address) -> new ControlBuffer(this, block, address))
                    .sizes(minPosted, minPosted, maxPosted + minPosted)
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
                engine.submit(controlBuffers.acquire().receive);
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

    /** Registers an application buffer for this endpoint's rails (cached where the layout allows). */
    public MrHandle registerUserBuffer(long address, long length) throws RdmaException {
        return registerInternal(address, length, Use.USER_BUFFER);
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

    /** Drives progress: one bounded step over every rail, queued sends, then the peers' liveness. */
    public synchronized int progress() throws RdmaException {
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
        if (!quarantine.isEmpty()) {
            releaseQuarantined(System.nanoTime(), false);
        }
        long now = System.nanoTime();
        if (now >= nextLivenessCheck) {
            nextLivenessCheck = now + 1_000_000L;
            for (int i = 0; i < sendList.size(); i++) {
                SendComm comm = sendList.get(i);
                if (comm.connectedAndOpen()) {
                    checkLiveness(comm, comm.peerCommId(), Immediate.KEEPALIVE_TO_RECEIVER, comm.controlPeer(0), now);
                }
            }
            for (int i = 0; i < recvList.size(); i++) {
                RecvComm comm = recvList.get(i);
                if (comm.connectedAndOpen()) {
                    checkLiveness(comm, comm.peerCommId(), Immediate.KEEPALIVE_TO_SENDER, comm.controlPeer(0), now);
                }
            }
        }
        return handled;
    }

    private void checkLiveness(PeerLiveness.Peered comm, int peerCommId, int side, long peer, long now) {
        PeerLiveness liveness = comm.liveness();
        if (liveness.keepaliveDue(now)) {
            RmaOp op = acquireOp();
            if (op != null) {
                liveness.lastKeepaliveNanos = now;
                sendNotice(op, "keepalive", Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, side, peerCommId, 0), peer,
                        liveness);
            }
        }
        liveness.check(now);
    }

    /** Posts {@code op} as a zero-byte send with immediate data {@code word} to {@code peer} on control rail 0. */
    void sendNotice(RmaOp op, String what, int word, long peer, RmaOp.Owner owner) {
        op.set(RmaOp.Kind.SENDDATA, controlEndpoint(0), 0, what, owner);
        op.buf = 0;
        op.len = 0;
        op.desc = 0;
        op.data = immediate(word, 0);
        op.peer = peer;
        engine.submit(op);
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
    public synchronized ListenComm listen() throws RdmaException {
        requireOpen();
        return handshake.listen();
    }

    /**
     * Connects to a listener. Returns null until the listener has accepted; call again with the
     * same handle.
     *
     * @throws RdmaException INVALID_ARGUMENT for a handle that does not decode, INVALID_USAGE for
     *     rail counts that differ, REMOTE when the listener refuses or does not answer in time
     */
    public synchronized SendComm connect(byte[] handle) throws RdmaException {
        requireOpen();
        return handshake.connect(handle);
    }

    /** The next accepted connection on {@code listen}, or null for now. */
    public synchronized RecvComm accept(ListenComm listen) throws RdmaException {
        requireOpen();
        return handshake.accept(listen);
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

    synchronized void closeListen(ListenComm listen) {
        if (listen.closed) {
            return;
        }
        listen.closed = true;
        handshake.forget(listen);
        for (RecvComm comm : listen.ready) {
            discard(comm);
        }
        listen.ready.clear();
    }

    synchronized void closeSend(SendComm comm) throws RdmaException {
        if (comm.closed) {
            return;
        }
        comm.failQueued(new RdmaException(ErrorCategory.INVALID_USAGE, "the send communicator was closed"));
        if (comm.connectedAndOpen() && comm.liveness().dead == null) {
            // Drain: writes in flight finish (or the peer is presumed dead) before the application
            // may deregister the buffers they read from.
            long deadline = System.nanoTime() + params.peerTimeoutMs() * 1_000_000L;
            while (comm.writesInFlight() && comm.liveness().dead == null && System.nanoTime() < deadline) {
                progress();
            }
            comm.sendClosedNotice();
            progress();
        }
        comm.closed = true;
        sends[comm.id()] = null;
        sendList.remove(comm);
        sendIds.free(comm.id());
        handshake.forget(comm);
        // The receiver may still write control messages into the mailbox: keep it registered for a
        // while, so that such a write never meets a missing key (which breaks rxm connections).
        comm.closedNanos = System.nanoTime();
        quarantine.add(comm);
    }

    /** Releases quarantined mailboxes older than the peer timeout, or all of them. */
    private void releaseQuarantined(long now, boolean all) {
        while (!quarantine.isEmpty()
                && (all || now - quarantine.peek().closedNanos > params.peerTimeoutMs() * 1_000_000L)) {
            SendComm comm = quarantine.poll();
            try {
                comm.mailboxMr.close();
            } catch (MrException e) {
                LOG.log(Level.WARNING, "deregistering a mailbox: {0}", e.getMessage());
            } finally {
                NativeMemory.free(comm.mailbox);
            }
        }
    }

    /**
     * Closes a receive communicator. With receives outstanding, the sender may still write into
     * their buffers: it is told that this side closes, and the close waits — driving progress, at
     * most peerTimeoutMs — until it confirms that it writes no more, so that the application may
     * then deregister the buffers.
     */
    synchronized void closeRecv(RecvComm comm) {
        if (!comm.closed && comm.connectedAndOpen() && comm.outstanding() > 0 && comm.liveness().dead == null
                && !closed) {
            RmaOp op = acquireOp();
            if (op != null) {
                sendNotice(op, "close notice", Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, Immediate.RECEIVER_CLOSING,
                        comm.peerCommId(), 0), comm.controlPeer(0), comm.liveness());
                long deadline = System.nanoTime() + params.peerTimeoutMs() * 1_000_000L;
                try {
                    while (!comm.senderClosed && comm.liveness().dead == null && System.nanoTime() < deadline) {
                        progress();
                    }
                } catch (RdmaException e) {
                    LOG.log(Level.WARNING, "closing a receive communicator: {0}", e.getMessage());
                }
            }
        }
        discard(comm);
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
    }

    /**
     * Closes every communicator, then the registrations bound to this endpoint's rails, then the
     * endpoints, address vectors and queues. Closing twice is harmless.
     */
    @Override
    public synchronized void close() throws RdmaException {
        if (closed) {
            return;
        }
        RdmaException failure = null;
        for (ListenComm listen : handshake.listens()) {
            closeListen(listen);
        }
        for (SendComm comm : sends) {
            if (comm != null) {
                try {
                    closeSend(comm);
                } catch (RdmaException e) {
                    failure = Device.add(failure, e);
                }
            }
        }
        for (RecvComm comm : recvs) {
            if (comm != null) {
                discard(comm);
            }
        }
        releaseQuarantined(0, true);
        closed = true;
        RdmaException resources = closeResources(null);
        device.closed(this);
        failure = resources == null ? failure : Device.add(failure, resources);
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
