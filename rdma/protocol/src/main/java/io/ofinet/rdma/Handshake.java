package io.ofinet.rdma;

import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.HandshakeMessage;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Connection establishment for one endpoint: the CONNECT / ACCEPT / REJECT exchange on the first
 * control rail, sent from control buffers and dispatched as it arrives to the connecting side
 * ({@link Connector}) and the listening side ({@link Acceptor}), with what both use: the tokens of
 * new communicators and the connection to a peer. Never blocks: connect and accept return null
 * until their side of the exchange is done. Called with the endpoint's lock held.
 */
final class Handshake {
    private static final System.Logger LOG = System.getLogger(Handshake.class.getName());

    private final RdmaEndpoint endpoint;
    private final int dataRails;
    private final int controlRails;
    /** The endpoint's parts it uses, and the two sides: set by {@link #open}. */
    private HandshakeParts at;
    private Connector connector;
    private Acceptor acceptor;
    /** Where an arrived handshake message is copied to be decoded. */
    private final byte[] received = new byte[ControlRailBuffer.BYTES];
    /** Tokens of new communicators (docs/PROTOCOL.md, "What a peer can forge"); seeded once, securely. */
    private final java.util.SplittableRandom tokens = new java.util.SplittableRandom(
            new java.security.SecureRandom().nextLong());
    /** Handshake messages dropped. */
    long dropped;

    Handshake(RdmaEndpoint endpoint, int dataRails, int controlRails) {
        this.endpoint = endpoint;
        this.dataRails = dataRails;
        this.controlRails = controlRails;
    }

    /** Takes the endpoint's parts it uses, and makes the two sides, once the rails and pools are open. */
    void open(HandshakeParts parts) {
        this.at = parts;
        this.connector = new Connector(endpoint, this, parts);
        this.acceptor = new Acceptor(endpoint, this, parts);
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
        return connector.busy() || acceptor.busy();
    }

    /**
     * Whether no connection is being accepted, and every one being made from this endpoint was given
     * up by {@code now} ({@link Connector#onlyOverdue}).
     */
    boolean givenUp(long now) {
        return !acceptor.busy() && connector.onlyOverdue(now);
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

    /** The listen communicators still open (none before {@link #open}). */
    List<ListenComm> listens() {
        return acceptor == null ? List.of() : acceptor.listens();
    }

    void forget(ListenComm listen) {
        acceptor.forget(listen);
    }

    /** See {@link Acceptor#listen}. */
    ListenComm listen() throws RdmaException {
        return acceptor.listen();
    }

    /** See {@link Acceptor#accept}. */
    RecvComm accept(ListenComm listen) throws RdmaException {
        return acceptor.accept(listen);
    }

    /** CONNECTs refused. */
    long refused() {
        return acceptor == null ? 0 : acceptor.refused;
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
                    acceptor.onConnect(message);
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
}
