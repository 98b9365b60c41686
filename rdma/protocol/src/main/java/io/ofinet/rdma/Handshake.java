package io.ofinet.rdma;

import io.ofinet.config.Parameter;
import io.ofinet.fabric.FabricException;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.ProcessCheck;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.Mailbox;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Connection establishment for one endpoint: listen handles, and the CONNECT / ACCEPT / REJECT
 * exchange on the first control rail, from posted control buffers. Never blocks: connect and
 * accept return null until their side of the exchange is done. Called with the endpoint's lock
 * held.
 */
final class Handshake {
    private static final System.Logger LOG = System.getLogger(Handshake.class.getName());

    private final RdmaEndpoint endpoint;
    private final int dataRails;
    private final int controlRails;
    private final IdAllocator listenIds = new IdAllocator(Limits.MAX_COMMS, "listen ids");
    private final Map<Integer, ListenComm> listens = new HashMap<>();
    /** Connections in progress, by the handle they were started with (connect is called again with it). */
    private final Map<ByteBuffer, SendComm> connecting = new HashMap<>();
    private final List<RecvComm> accepting = new ArrayList<>();
    /** Where an arrived handshake message is copied to be decoded. */
    private final byte[] received = new byte[ControlRailBuffer.BYTES];
    /** Tokens of new communicators (docs/PROTOCOL.md, "What a peer can forge"); seeded once, securely. */
    private final java.util.SplittableRandom tokens = new java.util.SplittableRandom(
            new java.security.SecureRandom().nextLong());
    /** Handshake messages dropped; CONNECTs refused. */
    long dropped;
    long refused;

    Handshake(RdmaEndpoint endpoint, int dataRails, int controlRails) {
        this.endpoint = endpoint;
        this.dataRails = dataRails;
        this.controlRails = controlRails;
    }

    /** Whether a connection is being made from or to this endpoint (its messages come on control rail 0). */
    boolean busy() {
        return !connecting.isEmpty() || !accepting.isEmpty();
    }

    /** The listen communicators still open. */
    List<ListenComm> listens() {
        return new ArrayList<>(listens.values());
    }

    void forget(ListenComm listen) {
        listens.remove(listen.id());
        listenIds.free(listen.id());
    }

    void forget(SendComm comm) {
        connecting.values().remove(comm);
    }

    /** A listening communicator; its handle goes to the peers that connect. */
    ListenComm listen() throws RdmaException {
        int id = listenIds.allocate();
        try {
            byte[] address = endpoint.railSet.controlEndpoint(0).name();
            if (address.length > Limits.MAX_ADDRESS_BYTES) {
                throw new RdmaException(ErrorCategory.INTERNAL, "an endpoint address of " + address.length
                        + " bytes does not fit a listen handle");
            }
            ListenComm listen = new ListenComm(endpoint, id,
                    new ListenHandle(endpoint.dataRails(), endpoint.controlRails(), id, address).encode());
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
    SendComm connect(byte[] handle) throws RdmaException {
        endpoint.readQueues();
        ByteBuffer key = ByteBuffer.wrap(handle.clone());
        SendComm comm = connecting.get(key);
        if (comm == null) {
            comm = startConnect(ListenHandle.decode(handle));
            connecting.put(key, comm);
            endpoint.readQueues();
        }
        if (comm.connectFailure() != null) {
            connecting.remove(key);
            RdmaException failure = comm.connectFailure();
            endpoint.closing.closeSend(comm);
            throw failure;
        }
        if (comm.connected()) {
            connecting.remove(key);
            return comm;
        }
        if (System.nanoTime() > comm.deadlineNanos()) {
            connecting.remove(key);
            endpoint.closing.closeSend(comm);
            throw new RdmaException(ErrorCategory.REMOTE, "connect: the listener did not answer within "
                    + endpoint.params.connectionTimeoutMs() + " ms (connectionTimeoutMs)");
        }
        return null;
    }

    private SendComm startConnect(ListenHandle handle) throws RdmaException {
        if (handle.dataRails() != dataRails || handle.controlRails() != controlRails) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "connect: rail counts differ: this endpoint has "
                    + dataRails + " data and " + controlRails + " control rails, the listener "
                    + handle.dataRails() + " and " + handle.controlRails());
        }
        int id = endpoint.comms.newSendId();
        int slotBytes = Announcement.maxBytes(dataRails);
        long mailbox = 0;
        MrHandle mailboxMr = null;
        long inserted = Connection.NOT_INSERTED;
        try {
            long bytes = (long) Limits.WINDOW * slotBytes;
            mailbox = endpoint.memory.allocate(bytes);
            mailboxMr = endpoint.pools.register(mailbox, bytes, io.ofinet.mr.Use.CONTROL_MAILBOX);
            long listener = endpoint.peers.insert(dataRails, handle.address());
            inserted = listener;
            SendComm comm = new SendComm(endpoint.commParts, endpoint.closing::closeSend, id, newToken(), System.nanoTime() + endpoint.params.connectionTimeoutMs() * 1_000_000L,
                    new Mailbox(mailbox, mailboxMr, slotBytes));
            endpoint.comms.add(comm);
            long[] keys = new long[controlRails];
            for (int c = 0; c < controlRails; c++) {
                keys[c] = mailboxMr.key(RailKind.CONTROL, c);
            }
            HandshakeMessage connect = HandshakeMessage.connect(dataRails, controlRails, handle.listenId(), id,
                    mailboxMr.remoteAddress(RailKind.CONTROL, 0, 0), Limits.WINDOW, slotBytes, keys, endpoint.railSet.names(0, dataRails),
                    endpoint.railSet.names(dataRails, controlRails), ProcessCheck.SELF, comm.token(), eagerMaxSize());
            // The listener's address is used for the connect message only: the connection inserts
            // the acceptor's addresses (the same, on control rail 0) for itself.
            send(connect, listener, () -> {
                endpoint.peers.release(dataRails, listener);
                comm.connectSent();
            }, cause -> {
                endpoint.peers.release(dataRails, listener);
                comm.connectFailed(new RdmaException(ErrorCategory.REMOTE,
                        "connect: the connect message did not reach the listener: " + cause.getMessage(), cause));
            });
            return comm; // the send's hooks release the listener's address
        } catch (FabricException e) {
            abandonConnect(id, mailbox, mailboxMr, inserted);
            throw new RdmaException(ErrorCategory.SYSTEM, "connect: " + e.getMessage(), e);
        } catch (RdmaException | RuntimeException e) {
            abandonConnect(id, mailbox, mailboxMr, inserted);
            throw e;
        }
    }

    /** Undoes what a connect that failed before its message went out had taken. */
    private void abandonConnect(int id, long mailbox, MrHandle mailboxMr, long listener) {
        endpoint.duties.releaseMailbox(mailbox, mailboxMr);
        endpoint.comms.abandon(id);
        if (listener != Connection.NOT_INSERTED) {
            endpoint.peers.release(dataRails, listener);
        }
    }

    /** A new communicator's token: random, never 0 (the value of a field nobody filled). */
    private int newToken() {
        int token;
        do {
            token = tokens.nextInt();
        } while (token == 0);
        return token;
    }

    /** Sends a handshake message from a control buffer; when none is free, the send fails at once. */
    private void send(HandshakeMessage message, long dest, Runnable sent, java.util.function.Consumer<RdmaException> failed)
            throws RdmaException {
        ControlRailBuffer buffer = endpoint.pools.acquire();
        if (buffer == null) {
            failed.accept(new RdmaException(ErrorCategory.SYSTEM, "no free control buffer for a handshake message"));
            return;
        }
        byte[] bytes = new byte[HandshakeMessage.MAX_BYTES];
        int n = message.encode(bytes);
        PeerQueue queue = endpoint.peers.queue(dataRails, dest);
        // A new handshake gives a condemned destination a new chance: if the peer is really gone,
        // this connection fails on its own evidence or connectionTimeoutMs.
        if (message.type() != HandshakeMessage.Type.REJECT) {
            queue.revive();
        }
        buffer.send.start(bytes, n, dest, queue, sent, failed);
    }

    /** The next accepted connection on {@code listen}, or null for now. */
    RecvComm accept(ListenComm listen) throws RdmaException {
        if (listen.endpoint() != endpoint || listen.closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "accept: the listen communicator is closed or of"
                    + " another endpoint");
        }
        endpoint.readQueues();
        RdmaException failure = listen.failures.poll();
        if (failure != null) {
            throw failure;
        }
        return listen.ready.poll();
    }

    /**
     * A handshake message of {@code length} bytes arrived on the first control rail, in the
     * receive buffer at {@code address}. A bad one is logged and dropped.
     */
    void onMessage(long address, int length) {
        HandshakeMessage message;
        try {
            endpoint.memory.read(address, received, 0, length);
            message = HandshakeMessage.decode(received, length);
        } catch (RdmaException e) {
            dropped++;
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

    /** The largest eager payload this endpoint sends and takes (0: the eager path is off). */
    private int eagerMaxSize() {
        EagerBuffers eager = endpoint.pools.eager;
        return eager != null && eager.enabled() ? (int) eager.payloadBytes() : 0;
    }

    private void onConnect(HandshakeMessage m) throws FabricException, RdmaException {
        long reply = endpoint.peers.insert(dataRails, m.controlAddresses().get(0), m.process());
        ListenComm listen = listens.get(m.listenId());
        long maxPending = endpoint.params.get(Parameter.MAX_PENDING_CONNECTIONS);
        String refusal = listen == null ? "no listen communicator " + m.listenId() + " on this endpoint"
                : m.dataRails() != dataRails || m.controlRails() != controlRails ? "rail counts differ: the listener"
                + " has " + dataRails + " data and " + controlRails + " control rails, the connector "
                + m.dataRails() + " and " + m.controlRails()
                : m.eagerMaxSize() != eagerMaxSize() ? "eager sizes differ: the listener takes eager messages of up to "
                + eagerMaxSize() + " bytes, the connector sends them up to " + m.eagerMaxSize()
                + " (eagerMaxSize and rdmaMinPostedEagerBuffers must agree; 0: off)"
                : listen.pending() >= maxPending ? "the listen communicator holds " + listen.pending()
                + " connections that accept() has not returned (maxPendingConnections " + maxPending + ")" : null;
        if (refusal != null) {
            refused++;
            LOG.log(Level.WARNING, "refusing a connection: {0}", refusal);
            send(HandshakeMessage.reject(dataRails, controlRails, m.listenId(), m.connectorCommId(), refusal), reply,
                    () -> endpoint.peers.release(dataRails, reply), cause -> endpoint.peers.release(dataRails, reply));
            return;
        }
        Connection connector;
        try {
            connector = Connection.inserted(endpoint.peers, endpoint.engine, !endpoint.params.peerProcessCheckDisabled(), m.connectorCommId(), m, reply);
        } catch (FabricException e) {
            // The connector hears why at once rather than after connectionTimeoutMs.
            refused++;
            String reason = "the listener cannot take the connector's addresses: " + e.getMessage();
            LOG.log(Level.WARNING, "refusing a connection: {0}", reason);
            send(HandshakeMessage.reject(dataRails, controlRails, m.listenId(), m.connectorCommId(), reason), reply,
                    () -> endpoint.peers.release(dataRails, reply), cause -> endpoint.peers.release(dataRails, reply));
            return;
        }
        int id = endpoint.comms.newRecvId();
        RecvComm comm = new RecvComm(endpoint.commParts, endpoint.closing::closeRecv, id, newToken(), connector, m.mailboxAddress(), m.mailboxSlotBytes(),
                m.mailboxKeys());
        endpoint.comms.add(comm);
        accepting.add(comm);
        listen.handshaking++;
        send(HandshakeMessage.accept(dataRails, controlRails, m.listenId(), m.connectorCommId(), id,
                endpoint.railSet.names(0, dataRails), endpoint.railSet.names(dataRails, controlRails), ProcessCheck.SELF,
                comm.token(), eagerMaxSize()),
                reply, () -> {
                    accepting.remove(comm);
                    listen.handshaking--;
                    comm.acceptSent();
                    endpoint.comms.connected(comm);
                    if (!listen.closed && !comm.isClosed()) {
                        listen.ready.add(comm);
                    }
                }, cause -> {
                    accepting.remove(comm);
                    listen.handshaking--;
                    if (!listen.closed) {
                        listen.failures.add(new RdmaException(ErrorCategory.REMOTE, "accept: the connecting peer"
                                + " went away during the handshake: " + cause.getMessage(), cause));
                    }
                    endpoint.closing.discard(comm);
                });
    }

    private void onAccept(HandshakeMessage m) throws FabricException {
        SendComm comm = endpoint.comms.send(m.connectorCommId());
        if (comm == null || comm.connection() != null || comm.isClosed()) {
            dropped++;
            LOG.log(Level.WARNING, "dropping an ACCEPT for unknown send communicator {0}", m.connectorCommId());
            return;
        }
        if (m.dataRails() != dataRails || m.controlRails() != controlRails) {
            comm.connectFailed(new RdmaException(ErrorCategory.REMOTE, "connect: the acceptor answered with "
                    + m.dataRails() + " data and " + m.controlRails() + " control rails; this side has " + dataRails
                    + " and " + controlRails));
            return;
        }
        Connection acceptor;
        try {
            acceptor = Connection.inserted(endpoint.peers, endpoint.engine, !endpoint.params.peerProcessCheckDisabled(), m.acceptorCommId(), m, Connection.NOT_INSERTED);
        } catch (FabricException e) {
            comm.connectFailed(new RdmaException(ErrorCategory.SYSTEM, "connect: the acceptor's addresses: "
                    + e.getMessage(), e));
            return;
        }
        // Ready for announcements from now on: the receiver may post before connect() returns.
        comm.accepted(acceptor,
                new io.ofinet.rdma.sched.RailScheduler(dataRails, endpoint.params.minStripeSizeBytes(),
                        endpoint.params.schedMaxSmallRrSizeBytes()), endpoint.params.peerTimeoutMs(),
                System.nanoTime());
        endpoint.comms.connected(comm);
    }

    private void onReject(HandshakeMessage m) {
        SendComm comm = endpoint.comms.send(m.connectorCommId());
        if (comm != null && !comm.isClosed()) {
            comm.connectFailed(new RdmaException(ErrorCategory.REMOTE, "connect: the listener refused the connection: "
                    + m.reason()));
        }
    }
}
