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
import io.ofinet.mr.RailKind;
import io.ofinet.mr.Rails;
import io.ofinet.mr.Use;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.ControlMessage;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    private final IdAllocator listenIds = new IdAllocator(Limits.MAX_COMMS, "listen ids");
    private final IdAllocator sendIds = new IdAllocator(Limits.MAX_COMMS, "send communicator ids");
    private final IdAllocator recvIds = new IdAllocator(Limits.MAX_COMMS, "receive communicator ids");
    private final Map<Integer, ListenComm> listens = new HashMap<>();
    /** Communicators by id: arrays, so that finding one for a completion allocates nothing. */
    private final SendComm[] sends = new SendComm[Limits.MAX_COMMS];
    private final RecvComm[] recvs = new RecvComm[Limits.MAX_COMMS];
    private final Map<ByteBuffer, SendComm> connecting = new HashMap<>();
    private final List<RecvComm> accepting = new ArrayList<>();
    /** Connected communicators, walked by index from progress so that progress allocates nothing. */
    private final List<SendComm> sendList = new ArrayList<>();
    private final List<RecvComm> recvList = new ArrayList<>();
    private long nextLivenessCheck;
    /** Mailboxes of closed send communicators, kept registered a while for late control writes. */
    private final java.util.ArrayDeque<SendComm> quarantine = new java.util.ArrayDeque<>();
    private boolean closed;

    RdmaEndpoint(Device device) throws RdmaException {
        this.device = device;
        this.spec = device.spec();
        this.params = spec.parameters();
        this.dataRails = spec.dataRails().size();
        this.controlRails = spec.controlRails().size();
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
            engine = new ProgressEngine(queues, params.cqReadCount(), this::remoteData);
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

    private MrHandle registerInternal(long address, long bytes, Use use) throws RdmaException {
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
                op.set(RmaOp.Kind.SENDDATA, controlEndpoint(0), 0, "keepalive", liveness);
                op.buf = 0;
                op.len = 0;
                op.desc = 0;
                op.data = immediate(Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, side, peerCommId, 0), 0);
                op.peer = peer;
                engine.submit(op);
            }
        }
        liveness.check(now);
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

    void releaseOp(RmaOp op) {
        if (!closed) {
            ops.release(op);
        }
    }

    /** A free control buffer, or null. */
    ControlBuffer acquireControlBuffer() throws RdmaException {
        return controlBuffers.acquire();
    }

    private void requireOpen() throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "the endpoint is closed");
        }
    }

    // ---- listen / connect / accept ----

    /** A listening communicator; its handle goes to the peers that connect. */
    public synchronized ListenComm listen() throws RdmaException {
        requireOpen();
        int id = listenIds.allocate();
        try {
            byte[] address = controlEndpoint(0).name();
            if (address.length > Limits.MAX_ADDRESS_BYTES) {
                throw new RdmaException(ErrorCategory.INTERNAL, "an endpoint address of " + address.length
                        + " bytes does not fit a listen handle");
            }
            ListenComm listen = new ListenComm(this, id,
                    new ListenHandle(dataRails, controlRails, id, address).encode());
            listens.put(id, listen);
            return listen;
        } catch (FabricException e) {
            listenIds.free(id);
            throw new RdmaException(ErrorCategory.SYSTEM, "listen: " + e.getMessage(), e);
        }
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
        engine.progress();
        ByteBuffer key = ByteBuffer.wrap(handle.clone());
        SendComm comm = connecting.get(key);
        if (comm == null) {
            comm = startConnect(ListenHandle.decode(handle));
            connecting.put(key, comm);
            engine.progress();
        }
        if (comm.failure != null) {
            connecting.remove(key);
            RdmaException failure = comm.failure;
            closeSend(comm);
            throw failure;
        }
        if (comm.connected()) {
            connecting.remove(key);
            return comm;
        }
        if (System.nanoTime() > comm.deadlineNanos) {
            connecting.remove(key);
            closeSend(comm);
            throw new RdmaException(ErrorCategory.REMOTE, "connect: the listener did not answer within "
                    + params.connectionTimeoutMs() + " ms (connectionTimeoutMs)");
        }
        return null;
    }

    private SendComm startConnect(ListenHandle handle) throws RdmaException {
        if (handle.dataRails() != dataRails || handle.controlRails() != controlRails) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "connect: rail counts differ: this endpoint has "
                    + dataRails + " data and " + controlRails + " control rails, the listener "
                    + handle.dataRails() + " and " + handle.controlRails());
        }
        int id = sendIds.allocate();
        int slotBytes = ControlMessage.maxBytes(dataRails);
        long mailbox = 0;
        MrHandle mailboxMr = null;
        try {
            long bytes = (long) Limits.WINDOW * slotBytes;
            mailbox = NativeMemory.allocate(bytes);
            mailboxMr = registerInternal(mailbox, bytes, Use.CONTROL_MAILBOX);
            long listener = avs.get(dataRails).insert(handle.address());
            SendComm comm = new SendComm(this, id, System.nanoTime() + params.connectionTimeoutMs() * 1_000_000L,
                    mailbox, mailboxMr, slotBytes);
            sends[id] = comm;
            long[] keys = new long[controlRails];
            for (int c = 0; c < controlRails; c++) {
                keys[c] = mailboxMr.key(RailKind.CONTROL, c);
            }
            HandshakeMessage connect = HandshakeMessage.connect(dataRails, controlRails, handle.listenId(), id,
                    mailboxMr.remoteAddress(RailKind.CONTROL, 0, 0), Limits.WINDOW, slotBytes, keys, names(0, dataRails),
                    names(dataRails, controlRails));
            send(connect, listener, () -> comm.connectSent = true, cause -> comm.failure = new RdmaException(
                    ErrorCategory.REMOTE, "connect: the connect message did not reach the listener: "
                    + cause.getMessage(), cause));
            return comm;
        } catch (FabricException e) {
            releaseMailbox(mailbox, mailboxMr);
            sends[id] = null;
            sendIds.free(id);
            throw new RdmaException(ErrorCategory.SYSTEM, "connect: " + e.getMessage(), e);
        } catch (RdmaException | RuntimeException e) {
            releaseMailbox(mailbox, mailboxMr);
            sends[id] = null;
            sendIds.free(id);
            throw e;
        }
    }

    private void releaseMailbox(long mailbox, MrHandle mr) {
        try {
            if (mr != null) {
                mr.close();
            }
        } catch (MrException e) {
            LOG.log(Level.WARNING, "deregistering a mailbox: {0}", e.getMessage());
        }
        NativeMemory.free(mailbox);
    }

    private List<byte[]> names(int from, int count) throws FabricException {
        List<byte[]> names = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            names.add(endpoints.get(i).name());
        }
        return names;
    }

    /** Sends a handshake message from a control buffer; when none is free, the send fails at once. */
    private void send(HandshakeMessage message, long dest, Runnable sent, java.util.function.Consumer<RdmaException> failed)
            throws RdmaException {
        ControlBuffer buffer = controlBuffers.acquire();
        if (buffer == null) {
            failed.accept(new RdmaException(ErrorCategory.SYSTEM, "no free control buffer for a handshake message"));
            return;
        }
        byte[] bytes = new byte[HandshakeMessage.MAX_BYTES];
        int n = message.encode(bytes);
        buffer.send.start(bytes, n, dest, sent, failed);
    }

    /** The next accepted connection on {@code listen}, or null for now. */
    public synchronized RecvComm accept(ListenComm listen) throws RdmaException {
        requireOpen();
        if (listen.endpoint() != this || listen.closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "accept: the listen communicator is closed or of"
                    + " another endpoint");
        }
        engine.progress();
        RdmaException failure = listen.failures.poll();
        if (failure != null) {
            throw failure;
        }
        return listen.ready.poll();
    }

    /** A handshake message arrived on the first control rail. A bad one is logged and dropped. */
    void onHandshake(byte[] bytes, int length) {
        HandshakeMessage message;
        try {
            message = HandshakeMessage.decode(bytes, length);
        } catch (RdmaException e) {
            LOG.log(Level.WARNING, "dropping a handshake message: {0}", e.getMessage());
            return;
        }
        try {
            switch (message.type()) {
                case CONNECT:
                    onConnect(message);
                    break;
                case ACCEPT:
                    onAccept(message);
                    break;
                default:
                    onReject(message);
                    break;
            }
        } catch (FabricException | RdmaException e) {
            LOG.log(Level.WARNING, "handling a {0} message: {1}", message.type(), e.getMessage());
        }
    }

    private void onConnect(HandshakeMessage m) throws FabricException, RdmaException {
        long reply = avs.get(dataRails).insert(m.controlAddresses().get(0));
        ListenComm listen = listens.get(m.listenId());
        String refusal = listen == null ? "no listen communicator " + m.listenId() + " on this endpoint"
                : m.dataRails() != dataRails || m.controlRails() != controlRails ? "rail counts differ: the listener"
                + " has " + dataRails + " data and " + controlRails + " control rails, the connector "
                + m.dataRails() + " and " + m.controlRails() : null;
        if (refusal != null) {
            LOG.log(Level.WARNING, "refusing a connection: {0}", refusal);
            send(HandshakeMessage.reject(dataRails, controlRails, m.listenId(), m.connectorCommId(), refusal), reply,
                    () -> { }, cause -> { });
            return;
        }
        long[] dataPeers = new long[dataRails];
        long[] controlPeers = new long[controlRails];
        for (int r = 0; r < dataRails; r++) {
            dataPeers[r] = avs.get(r).insert(m.dataAddresses().get(r));
        }
        for (int c = 0; c < controlRails; c++) {
            controlPeers[c] = c == 0 ? reply : avs.get(dataRails + c).insert(m.controlAddresses().get(c));
        }
        int id = recvIds.allocate();
        RecvComm comm = new RecvComm(this, id, listen, m.connectorCommId(), m.mailboxAddress(), m.mailboxSlotBytes(),
                m.mailboxKeys(), dataPeers, controlPeers);
        recvs[id] = comm;
        accepting.add(comm);
        send(HandshakeMessage.accept(dataRails, controlRails, m.listenId(), m.connectorCommId(), id,
                names(0, dataRails), names(dataRails, controlRails)), reply, () -> {
                    accepting.remove(comm);
                    comm.acceptSent = true;
                    recvList.add(comm);
                    if (!listen.closed && !comm.closed) {
                        listen.ready.add(comm);
                    }
                }, cause -> {
                    accepting.remove(comm);
                    if (!listen.closed) {
                        listen.failures.add(new RdmaException(ErrorCategory.REMOTE, "accept: the connecting peer"
                                + " went away during the handshake: " + cause.getMessage(), cause));
                    }
                    discardRecv(comm);
                });
    }

    private void onAccept(HandshakeMessage m) throws FabricException {
        SendComm comm = sends[m.connectorCommId()];
        if (comm == null || comm.accepted || comm.closed) {
            LOG.log(Level.WARNING, "dropping an ACCEPT for unknown send communicator {0}", m.connectorCommId());
            return;
        }
        if (m.dataRails() != dataRails || m.controlRails() != controlRails) {
            comm.failure = new RdmaException(ErrorCategory.REMOTE, "connect: the acceptor answered with "
                    + m.dataRails() + " data and " + m.controlRails() + " control rails; this side has " + dataRails
                    + " and " + controlRails);
            return;
        }
        comm.dataPeers = new long[dataRails];
        comm.controlPeers = new long[controlRails];
        for (int r = 0; r < dataRails; r++) {
            comm.dataPeers[r] = avs.get(r).insert(m.dataAddresses().get(r));
        }
        for (int c = 0; c < controlRails; c++) {
            comm.controlPeers[c] = avs.get(dataRails + c).insert(m.controlAddresses().get(c));
        }
        comm.peerCommId = m.acceptorCommId();
        // Ready for control messages from now on: the receiver may post before connect() returns.
        comm.connectedWith(new io.ofinet.rdma.sched.RailScheduler(dataRails, params.minStripeSizeBytes(),
                params.schedMaxSmallRrSizeBytes()), params.peerTimeoutMs(), System.nanoTime());
        sendList.add(comm);
        comm.accepted = true;
    }

    private void onReject(HandshakeMessage m) {
        SendComm comm = sends[m.connectorCommId()];
        if (comm != null && !comm.closed) {
            comm.failure = new RdmaException(ErrorCategory.REMOTE, "connect: the listener refused the connection: "
                    + m.reason());
        }
    }

    /**
     * A remote write with immediate data arrived (context 0). What a peer sent that breaks a rule
     * fails the communicator it names; one naming no communicator (a late message for a closed one)
     * is logged and dropped.
     */
    private void remoteData(int rail, long flags, long len, long data) throws RdmaException {
        int word = Immediate.check(data & 0xffffffffL, dataRails);
        long length = wideImmediate ? data >>> 32 : len;
        int comm = Immediate.commId(word);
        int seq = Immediate.seq(word);
        switch (Immediate.type(word)) {
            case Immediate.TYPE_CONTROL: {
                SendComm send = sends[comm];
                if (send == null || send.closed) {
                    LOG.log(Level.WARNING, "dropping a control message for send communicator {0}", comm);
                    return;
                }
                try {
                    send.controlArrived(seq);
                } catch (RdmaException e) {
                    send.failQueued(e);
                }
                return;
            }
            case Immediate.TYPE_KEEPALIVE:
                keepalive(comm, Immediate.recvIndex(word));
                return;
            case Immediate.TYPE_DATA:
            case Immediate.TYPE_ERROR: {
                RecvComm recv = recvs[comm];
                if (recv == null || recv.closed) {
                    LOG.log(Level.WARNING, "dropping a remote write for receive communicator {0}", comm);
                    return;
                }
                if (Immediate.type(word) == Immediate.TYPE_DATA) {
                    recv.segmentArrived(seq, Immediate.recvIndex(word), Immediate.segments(word), length);
                } else {
                    recv.errorArrived(seq, Immediate.recvIndex(word), Immediate.segments(word));
                }
                return;
            }
            default:
                throw new RdmaException(ErrorCategory.INTERNAL, "immediate type " + Immediate.type(word));
        }
    }

    /** A keepalive, or one of the close notices carried as one. */
    private void keepalive(int comm, int side) {
        long now = System.nanoTime();
        switch (side) {
            case Immediate.RECEIVER_CLOSING: {
                SendComm send = sends[comm];
                if (send == null || send.closed) {
                    return; // closed already: its confirmation went out at its close
                }
                send.liveness().heard(now);
                send.peerClosing = true;
                send.failQueued(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
                return;
            }
            case Immediate.SENDER_CLOSED: {
                RecvComm recv = recvs[comm];
                if (recv != null) {
                    recv.senderClosed = true;
                    recv.liveness().heard(now);
                }
                return;
            }
            default: {
                PeerLiveness.Peered target = side == Immediate.KEEPALIVE_TO_SENDER ? sends[comm] : recvs[comm];
                if (target != null && target.liveness() != null) {
                    target.liveness().heard(now);
                }
            }
        }
    }

    /** A send with immediate data arrived on a control rail: a zero-byte message or a refusal. */
    void onNotice(int rail, long len, long data) {
        try {
            remoteData(rail, 0, len, data);
        } catch (RdmaException e) {
            LOG.log(Level.WARNING, "dropping a notice: {0}", e.getMessage());
        }
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
        listens.remove(listen.id());
        listenIds.free(listen.id());
        for (RecvComm comm : listen.ready) {
            discardRecv(comm);
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
        connecting.values().remove(comm);
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
                op.set(RmaOp.Kind.SENDDATA, controlEndpoint(0), 0, "close notice", comm.liveness());
                op.buf = 0;
                op.len = 0;
                op.desc = 0;
                op.data = immediate(Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, Immediate.RECEIVER_CLOSING,
                        comm.peerCommId(), 0), 0);
                op.peer = comm.controlPeer(0);
                engine.submit(op);
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
        discardRecv(comm);
    }

    private void discardRecv(RecvComm comm) {
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
        for (ListenComm listen : new ArrayList<>(listens.values())) {
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
                discardRecv(comm);
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

    /**
     * Registrations first (they may be bound to the endpoints), then endpoints, AVs, queues. What
     * fails is added to {@code primary} when there is one, and returned otherwise.
     */
    private RdmaException closeResources(Exception primary) {
        List<Exception> problems = new ArrayList<>();
        try {
            if (ops != null) {
                ops.close();
            }
            if (controlBuffers != null) {
                controlBuffers.close();
            }
        } catch (RdmaException e) {
            problems.add(e);
        }
        try {
            if (flushMr != null) {
                flushMr.close();
            }
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
                try {
                    group.get(i).close();
                } catch (Exception e) {
                    problems.add(e);
                }
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
