package io.ofinet.rdma;

import io.ofinet.config.Parameters;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.ProcessCheck;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import java.lang.System.Logger.Level;
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
    private final List<RecvComm> accepting = new ArrayList<>();
    /** The endpoint's parts it uses, and the connecting side: set by {@link #open}. */
    private HandshakeParts at;
    private Connector connector;
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

    /** Takes the endpoint's parts it uses, and makes the connecting side, once the rails and pools are open. */
    void open(HandshakeParts parts) {
        this.at = parts;
        this.connector = new Connector(endpoint, this, parts);
    }

    /** See {@link Connector#connect}. */
    SendComm connect(byte[] handle) throws RdmaException {
        return connector.connect(handle);
    }

    void forget(SendComm comm) {
        connector.forget(comm);
    }

    /** Whether a connection is being made from or to this endpoint (its messages come on control rail 0). */
    boolean busy() {
        return connector.busy() || !accepting.isEmpty();
    }

    /**
     * Whether no connection is being accepted, and every one being made from this endpoint was given
     * up by {@code now} ({@link Connector#onlyOverdue}).
     */
    boolean givenUp(long now) {
        return accepting.isEmpty() && connector.onlyOverdue(now);
    }

    /** See {@link Connector#closeGivenUp}. */
    void closeGivenUp(long now) {
        connector.closeGivenUp(now);
    }

    /** How many connections being made were closed as given up ({@link Connector#closeGivenUp}). */
    long connectsGivenUp() {
        return connector.givenUpCount();
    }

    /** See {@link Connector#making}. */
    boolean making(SendComm comm) {
        return connector.making(comm);
    }

    /** The listen communicators still open. */
    List<ListenComm> listens() {
        return new ArrayList<>(listens.values());
    }

    void forget(ListenComm listen) {
        listens.remove(listen.id());
        listenIds.free(listen.id());
    }

    /** A listening communicator; its handle goes to the peers that connect. */
    ListenComm listen() throws RdmaException {
        int id = listenIds.allocate();
        try {
            byte[] address = at.commParts().rails().controlEndpoint(0).name();
            if (address.length > Limits.MAX_ADDRESS_BYTES) {
                throw new RdmaException(ErrorCategory.INTERNAL, "an endpoint address of " + address.length
                        + " bytes does not fit a listen handle");
            }
            ListenComm listen = new ListenComm(endpoint, id,
                    new ListenHandle(dataRails, controlRails, id, address).encode());
            listens.put(id, listen);
            return listen;
        } catch (FabricException e) {
            listenIds.free(id);
            throw new RdmaException(ErrorCategory.SYSTEM, "listen: " + e.getMessage(), e);
        }
    }

    /**
     * The connection to the sender of handshake message {@code m}, whose communicator is {@code
     * peerCommId}: its addresses inserted into this endpoint's address vectors, rail by rail.
     *
     * @param control0 control rail 0's address handle when the caller inserted it already (to answer
     *     the message), or {@link Connection#NOT_INSERTED}
     */
    Connection connection(int peerCommId, HandshakeMessage m, long control0) throws FabricException {
        CommParts parts = at.commParts();
        boolean checkProcess = !parts.params().peerProcessCheckDisabled();
        return Connection.inserted(parts.peers(), at.engine(), checkProcess, peerCommId, m, control0);
    }

    /** A new communicator's token: random, never 0 (the value of a field nobody filled). */
    int newToken() {
        int token;
        do {
            token = tokens.nextInt();
        } while (token == 0);
        return token;
    }

    /** Sends a handshake message from a control buffer; when none is free, the send fails at once. */
    void send(HandshakeMessage message, long dest, Runnable sent, java.util.function.Consumer<RdmaException> failed)
            throws RdmaException {
        ControlRailBuffer buffer;
        try {
            buffer = at.pools().acquire();
        } catch (RdmaException e) {
            // The pool could not grow: as when no buffer is free, the failure hook undoes what the
            // message was for.
            failed.accept(e);
            return;
        }
        if (buffer == null) {
            failed.accept(new RdmaException(ErrorCategory.SYSTEM, "no free control buffer for a handshake message"));
            return;
        }
        byte[] bytes = new byte[HandshakeMessage.MAX_BYTES];
        int n = message.encode(bytes);
        PeerQueue queue = at.commParts().peers().queue(dataRails, dest);
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
            at.commParts().memory().read(address, received, 0, length);
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
                    connector.onAccept(message);
                    break;
                default:
                    connector.onReject(message);
                    break;
            }
        } catch (FabricException | RdmaException e) {
            LOG.log(Level.WARNING, "handling a {0} message: {1}", message.type(), e.getMessage());
        }
    }

    /** The largest eager payload this endpoint sends and takes (0: the eager path is off). */
    int eagerMaxSize() {
        return (int) at.commParts().eagerMax();
    }

    /** Above how many bytes this endpoint's writes go with a notice message ({@link io.ofinet.rdma.rail.RailSet#writesNoticedAbove}). */
    long writesNoticedAbove() {
        return at.commParts().rails().writesNoticedAbove();
    }

    /** Refuses CONNECT {@code m}: a REJECT naming {@code reason} to {@code reply}, released once gone or failed. */
    private void refuse(HandshakeMessage m, long reply, String reason) throws RdmaException {
        CommParts parts = at.commParts();
        refused++;
        LOG.log(Level.WARNING, "refusing a connection: {0}", reason);
        send(HandshakeMessage.reject(dataRails, controlRails, m.listenId(), m.connectorCommId(), m.token(), reason),
                reply, () -> parts.peers().release(dataRails, reply), cause -> parts.peers().release(dataRails, reply));
    }

    private void onConnect(HandshakeMessage m) throws FabricException, RdmaException {
        CommParts parts = at.commParts();
        long reply = parts.peers().insert(dataRails, m.controlAddresses().get(0), m.process());
        ListenComm listen = listens.get(m.listenId());
        long maxPending = parts.params().get(Parameters.MAX_PENDING_CONNECTIONS);
        String refusal = listen == null ? "no listen communicator " + m.listenId() + " on this endpoint"
                : m.dataRails() != dataRails || m.controlRails() != controlRails ? "rail counts differ: the listener"
                + " has " + dataRails + " data and " + controlRails + " control rails, the connector "
                + m.dataRails() + " and " + m.controlRails()
                : m.eagerMaxSize() != eagerMaxSize() ? "eager sizes differ: the listener takes eager messages of up to "
                + eagerMaxSize() + " bytes, the connector sends them up to " + m.eagerMaxSize()
                + " (eagerMaxSize and rdmaMinPostedEagerBuffers must agree; 0: off)"
                : m.writesNoticedAbove() != writesNoticedAbove() ? "writes are announced differently: the listener"
                + " takes " + noticed(writesNoticedAbove()) + ", the connector sends " + noticed(m.writesNoticedAbove())
                + " (writeNotice must agree)"
                : listen.pending() >= maxPending ? "the listen communicator holds " + listen.pending()
                + " connections that accept() has not returned (maxPendingConnections " + maxPending + ")" : null;
        if (refusal != null) {
            refuse(m, reply, refusal);
            return;
        }
        // The id before the connection, which takes over the reply's address use: a refusal then
        // still releases it, and the connector hears why at once rather than after
        // connectionTimeoutMs.
        int id;
        try {
            id = at.comms().newRecvId();
        } catch (RdmaException e) {
            refuse(m, reply, e.getMessage());
            return;
        }
        Connection sender;
        try {
            sender = connection(m.connectorCommId(), m, reply);
        } catch (FabricException e) {
            at.comms().abandonRecv(id);
            refuse(m, reply, "the listener cannot take the connector's addresses: " + e.getMessage());
            return;
        }
        RecvComm comm = new RecvComm(parts, at.closing()::closeRecv, id, newToken(), sender, m.mailboxAddress(),
                m.mailboxSlotBytes(), m.mailboxKeys());
        at.comms().add(comm);
        accepting.add(comm);
        listen.handshaking++;
        send(HandshakeMessage.accept(dataRails, controlRails, m.listenId(), m.connectorCommId(), id,
                parts.rails().names(0, dataRails), parts.rails().names(dataRails, controlRails), ProcessCheck.SELF,
                comm.token(), m.token(), eagerMaxSize(), writesNoticedAbove()),
                reply, () -> {
                    accepting.remove(comm);
                    listen.handshaking--;
                    comm.acceptSent();
                    at.comms().connected(comm);
                    if (listen.closed) {
                        at.closing().dropUnaccepted(comm); // closed while the ACCEPT was on its way
                    } else if (!comm.isClosed()) {
                        listen.ready.add(comm);
                    }
                }, cause -> {
                    accepting.remove(comm);
                    listen.handshaking--;
                    if (!listen.closed) {
                        listen.failures.add(new RdmaException(ErrorCategory.REMOTE, "accept: the connecting peer"
                                + " went away during the handshake: " + cause.getMessage(), cause));
                    }
                    at.closing().discard(comm);
                });
    }

    /** How writes are announced, for a refusal: {@code above} as {@link HandshakeMessage#writesNoticedAbove}. */
    private static String noticed(long above) {
        return above < 0 ? "a notice message after every write" : above == Long.MAX_VALUE
                ? "immediate data with every write" : "immediate data with writes of up to " + above
                + " bytes and a notice message after longer ones";
    }
}
