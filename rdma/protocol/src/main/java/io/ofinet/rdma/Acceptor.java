package io.ofinet.rdma;

import io.ofinet.config.Parameters;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.ProcessCheck;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The listening side of an endpoint's handshake: listen communicators and their handles, and the
 * CONNECTs peers send to them, each answered with an ACCEPT or a REJECT (docs/PROTOCOL.md,
 * "Handshake messages"). Never blocks: {@link #accept} returns null until a connection is ready.
 * Called with the endpoint held.
 */
final class Acceptor {
    private static final System.Logger LOG = System.getLogger(Acceptor.class.getName());

    private final RdmaEndpoint endpoint;
    private final Handshake handshake;
    /** The endpoint's parts it uses. */
    private final HandshakeParts at;
    private final int dataRails;
    private final int controlRails;
    private final IdAllocator listenIds = new IdAllocator(Limits.MAX_COMMS, "listen ids");
    private final Map<Integer, ListenComm> listens = new HashMap<>();
    /** Receive communicators whose ACCEPT is on its way. */
    private final List<RecvComm> accepting = new ArrayList<>();
    /** CONNECTs refused. */
    long refused;

    Acceptor(RdmaEndpoint endpoint, Handshake handshake, HandshakeParts at) {
        this.endpoint = endpoint;
        this.handshake = handshake;
        this.at = at;
        this.dataRails = endpoint.dataRails();
        this.controlRails = endpoint.controlRails();
    }

    /** Whether a connection is being accepted (its ACCEPT not yet gone). */
    boolean busy() {
        return !accepting.isEmpty();
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

    /** Refuses CONNECT {@code m}: a REJECT naming {@code reason} to {@code reply}, released once gone or failed. */
    private void refuse(HandshakeMessage m, long reply, String reason) throws RdmaException {
        CommParts parts = at.commParts();
        refused++;
        LOG.log(Level.WARNING, "refusing a connection: {0}", reason);
        handshake.send(HandshakeMessage.reject(dataRails, controlRails, m.listenId(), m.connectorCommId(), m.token(),
                reason), reply, () -> parts.peers().release(dataRails, reply),
                cause -> parts.peers().release(dataRails, reply));
    }

    /** A CONNECT: accepted on the listen communicator it names, or refused saying why. */
    void onConnect(HandshakeMessage m) throws FabricException, RdmaException {
        CommParts parts = at.commParts();
        long reply = parts.peers().insert(dataRails, m.controlAddresses().get(0), m.process());
        ListenComm listen = listens.get(m.listenId());
        long maxPending = parts.params().get(Parameters.MAX_PENDING_CONNECTIONS);
        int eagerMax = handshake.eagerMaxSize();
        long noticedAbove = handshake.writesNoticedAbove();
        String refusal = listen == null ? "no listen communicator " + m.listenId() + " on this endpoint"
                : m.dataRails() != dataRails || m.controlRails() != controlRails ? "rail counts differ: the listener"
                + " has " + dataRails + " data and " + controlRails + " control rails, the connector "
                + m.dataRails() + " and " + m.controlRails()
                : m.eagerMaxSize() != eagerMax ? "eager sizes differ: the listener takes eager messages of up to "
                + eagerMax + " bytes, the connector sends them up to " + m.eagerMaxSize()
                + " (eagerMaxSize and rdmaMinPostedEagerBuffers must agree; 0: off)"
                : m.writesNoticedAbove() != noticedAbove ? "writes are announced differently: the listener"
                + " takes " + noticed(noticedAbove) + ", the connector sends " + noticed(m.writesNoticedAbove())
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
            sender = handshake.connection(m.connectorCommId(), m, reply);
        } catch (FabricException e) {
            at.comms().abandonRecv(id);
            refuse(m, reply, "the listener cannot take the connector's addresses: " + e.getMessage());
            return;
        }
        RecvComm comm = new RecvComm(parts, at.closing()::closeRecv, id, handshake.newToken(), sender,
                m.mailboxAddress(), m.mailboxSlotBytes(), m.mailboxKeys());
        at.comms().add(comm);
        accepting.add(comm);
        listen.handshaking++;
        handshake.send(HandshakeMessage.accept(dataRails, controlRails, m.listenId(), m.connectorCommId(), id,
                parts.rails().names(0, dataRails), parts.rails().names(dataRails, controlRails), ProcessCheck.SELF,
                comm.token(), m.token(), eagerMax, noticedAbove),
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
