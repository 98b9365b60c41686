package io.ofinet.rdma;

import io.ofinet.fabric.FabricException;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.ProcessCheck;
import io.ofinet.rdma.sched.RailScheduler;
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
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The connecting side of an endpoint's handshake: a send communicator's CONNECT to a listener, and
 * the ACCEPT or REJECT that answers it (docs/PROTOCOL.md, "Connecting"). Never blocks: {@link
 * #connect} returns null until the answer has come, and is called again with the same handle.
 * Called with the endpoint held.
 */
final class Connector {
    private static final System.Logger LOG = System.getLogger(Connector.class.getName());

    private final RdmaEndpoint endpoint;
    private final Handshake handshake;
    /** The endpoint's parts it uses. */
    private final HandshakeParts at;
    private final int dataRails;
    private final int controlRails;
    /** Connections in progress, by the handle they were started with (connect is called again with it). */
    private final Map<ByteBuffer, SendComm> connecting = new HashMap<>();
    /** Handles of connects given up ({@link #closeGivenUp}), each refused until the time it holds (System.nanoTime). */
    private final Map<ByteBuffer, Long> givenUp = new HashMap<>();
    /** How many connections being made {@link #closeGivenUp} closed. */
    private long givenUpCount;

    Connector(RdmaEndpoint endpoint, Handshake handshake, HandshakeParts at) {
        this.endpoint = endpoint;
        this.handshake = handshake;
        this.at = at;
        this.dataRails = endpoint.dataRails();
        this.controlRails = endpoint.controlRails();
    }

    /** Whether a connection is being made from this endpoint (its answer comes on control rail 0). */
    boolean busy() {
        return !connecting.isEmpty();
    }

    void forget(SendComm comm) {
        connecting.values().remove(comm);
    }

    /** Whether {@code comm} is a connection this endpoint is making, which no connect call has returned yet. */
    boolean making(SendComm comm) {
        return connecting.containsValue(comm);
    }

    /**
     * Whether every connection this endpoint is making is past its deadline ({@code
     * connectionTimeoutMs} since it began) at {@code now}, not taken by a connect call: the
     * application gave it up, as a connect call then would fail it, or would return it at once.
     */
    boolean onlyOverdue(long now) {
        for (SendComm comm : connecting.values()) {
            if (now - comm.connecting().deadlineNanos() <= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Closes the connections being made that no connect call has taken for {@code
     * connectionTimeoutMs} past their deadline, twice the timeout since each began: the application
     * gave them up (an abort that ended NCCL's connect loop on a thread that lives on). A caller
     * still calling meets its connect's failure at the deadline, or takes the connection before.
     * Their handles are refused for one more {@code connectionTimeoutMs}, then forgotten. Run with
     * the slow duties, holding the endpoint: each close waits for nothing and runs no step of its
     * own ({@link SendClosing#closeUntaken}); one that fails is logged, not thrown into the step.
     */
    void closeGivenUp(long now) {
        if (connecting.isEmpty() && givenUp.isEmpty()) {
            return;
        }
        long timeoutNanos = at.commParts().params().connectionTimeoutMs() * 1_000_000L;
        if (!givenUp.isEmpty()) {
            givenUp.values().removeIf(until -> now - until > 0);
        }
        List<SendComm> overdue = null;
        for (Iterator<Map.Entry<ByteBuffer, SendComm>> it = connecting.entrySet().iterator(); it.hasNext();) {
            Map.Entry<ByteBuffer, SendComm> entry = it.next();
            if (now - entry.getValue().connecting().deadlineNanos() > timeoutNanos) {
                overdue = overdue == null ? new ArrayList<>() : overdue;
                overdue.add(entry.getValue());
                givenUp.put(entry.getKey(), now + timeoutNanos);
                it.remove();
            }
        }
        if (overdue == null) {
            return;
        }
        for (SendComm comm : overdue) {
            givenUpCount++;
            LOG.log(Level.INFO, "connect: send communicator {0} given up: no connect call took it within {1} ms"
                    + " past its deadline (connectionTimeoutMs); closed", comm.id(), timeoutNanos / 1_000_000);
            try {
                at.closing().closeUntaken(comm);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "connect: closing given-up send communicator {0}: {1}", comm.id(),
                        e.toString());
            }
        }
    }

    long givenUpCount() {
        return givenUpCount;
    }

    /**
     * Connects to a listener. Returns null until the listener has accepted; call again with the
     * same handle.
     *
     * @throws RdmaException INVALID_ARGUMENT for a handle that does not decode, INVALID_USAGE for
     *     rail counts that differ or a connect given up ({@link #closeGivenUp}), REMOTE when the
     *     listener refuses or does not answer in time
     */
    SendComm connect(byte[] handle) throws RdmaException {
        endpoint.readQueues();
        ByteBuffer key = ByteBuffer.wrap(handle.clone());
        SendComm comm = connecting.get(key);
        Long refusedUntil = comm == null ? givenUp.get(key) : null;
        if (refusedUntil != null && refusedUntil - System.nanoTime() >= 0) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "connect: the connection this handle began was given"
                    + " up: no connect call took it within connectionTimeoutMs past its deadline, and it was closed");
        }
        if (comm == null) {
            comm = startConnect(ListenHandle.decode(handle));
            connecting.put(key, comm);
            endpoint.readQueues();
        }
        if (comm.connecting().failure() != null) {
            connecting.remove(key);
            RdmaException failure = comm.connecting().failure();
            at.closing().closeSend(comm);
            throw failure;
        }
        if (comm.connected()) {
            connecting.remove(key);
            return comm;
        }
        if (System.nanoTime() - comm.connecting().deadlineNanos() > 0) {
            connecting.remove(key);
            at.closing().closeSend(comm);
            throw new RdmaException(ErrorCategory.REMOTE, "connect: the listener did not answer within "
                    + at.commParts().params().connectionTimeoutMs() + " ms (connectionTimeoutMs)");
        }
        return null;
    }

    private SendComm startConnect(ListenHandle handle) throws RdmaException {
        CommParts parts = at.commParts();
        if (handle.dataRails() != dataRails || handle.controlRails() != controlRails) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "connect: rail counts differ: this endpoint has "
                    + dataRails + " data and " + controlRails + " control rails, the listener "
                    + handle.dataRails() + " and " + handle.controlRails());
        }
        try {
            parts.peers().requireWellFormed(dataRails, handle.address());
        } catch (FabricException e) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "connect: the handle's listener address is not"
                    + " one of this endpoint's control rail: " + e.getMessage(), e);
        }
        int id = at.comms().newSendId();
        int slotBytes = Announcement.maxBytes(dataRails);
        long mailbox = 0;
        MrHandle mailboxMr = null;
        long inserted = Connection.NOT_INSERTED;
        try {
            long bytes = (long) Limits.WINDOW * slotBytes;
            mailbox = parts.memory().allocate(bytes);
            mailboxMr = at.pools().register(mailbox, bytes, Use.CONTROL_MAILBOX);
            long listener = parts.peers().insert(dataRails, handle.address());
            inserted = listener;
            SendComm comm = new SendComm(parts, at.closing()::closeCalled, id, handshake.newToken(),
                    System.nanoTime() + parts.params().connectionTimeoutMs() * 1_000_000L,
                    new Mailbox(mailbox, mailboxMr, slotBytes));
            at.comms().add(comm);
            long[] keys = new long[controlRails];
            for (int c = 0; c < controlRails; c++) {
                keys[c] = mailboxMr.key(RailKind.CONTROL, c);
            }
            HandshakeMessage connect = HandshakeMessage.connect(dataRails, controlRails, handle.listenId(), id,
                    mailboxMr.remoteAddress(RailKind.CONTROL, 0, 0), Limits.WINDOW, slotBytes, keys,
                    parts.rails().names(0, dataRails), parts.rails().names(dataRails, controlRails), ProcessCheck.SELF,
                    comm.token(), handshake.eagerMaxSize(), handshake.writesNoticedAbove());
            // The listener's address is used for the connect message only: the connection inserts
            // the acceptor's addresses (the same, on control rail 0) for itself.
            handshake.send(connect, listener, () -> {
                parts.peers().release(dataRails, listener);
                comm.connecting().sent();
            }, cause -> {
                parts.peers().release(dataRails, listener);
                comm.connecting().failed(new RdmaException(ErrorCategory.REMOTE,
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
        at.duties().releaseMailbox(mailbox, mailboxMr);
        at.comms().abandonSend(id);
        if (listener != Connection.NOT_INSERTED) {
            at.commParts().peers().release(dataRails, listener);
        }
    }

    /** An ACCEPT: the connect it answers ({@link #answered}) is connected to the acceptor's rails. */
    void onAccept(HandshakeMessage m) throws FabricException {
        CommParts parts = at.commParts();
        SendComm comm = answered(m);
        if (comm == null) {
            return;
        }
        if (m.dataRails() != dataRails || m.controlRails() != controlRails) {
            comm.connecting().failed(new RdmaException(ErrorCategory.REMOTE, "connect: the acceptor answered with "
                    + m.dataRails() + " data and " + m.controlRails() + " control rails; this side has " + dataRails
                    + " and " + controlRails));
            return;
        }
        Connection acceptor;
        try {
            acceptor = handshake.connection(m.acceptorCommId(), m, Connection.NOT_INSERTED);
        } catch (FabricException e) {
            comm.connecting().failed(new RdmaException(ErrorCategory.SYSTEM, "connect: the acceptor's addresses: "
                    + e.getMessage(), e));
            return;
        }
        // Ready for announcements from now on: the receiver may post before connect() returns.
        comm.accepted(acceptor,
                new RailScheduler(dataRails, parts.params().minStripeSizeBytes(),
                        parts.params().schedMaxSmallRrSizeBytes()), parts.params().peerTimeoutMs(),
                System.nanoTime());
        at.comms().connected(comm);
    }

    /**
     * The connecting send communicator ACCEPT or REJECT {@code m} answers; null, the message dropped
     * and counted, when the communicator it names is not connecting (connected already, closed,
     * unknown) or the message answers another CONNECT than this communicator's (its token differs):
     * a late answer to an earlier connect under the same id, or a forged one, must neither attach a
     * connection to another peer nor stop one.
     */
    private SendComm answered(HandshakeMessage m) {
        SendComm comm = at.comms().send(m.connectorCommId());
        String why = comm == null || comm.connection() != null || comm.isClosed() ? "which is not connecting"
                : m.inReplyTo() != comm.token() ? "that answers another connect (the token it echoes differs)" : null;
        if (why == null) {
            return comm;
        }
        handshake.dropped++;
        LOG.log(Level.WARNING, "dropping a handshake {0} for send communicator {1}, {2}", m.type(),
                m.connectorCommId(), why);
        return null;
    }

    /** A REJECT: the connect it answers fails ({@link #answered}). */
    void onReject(HandshakeMessage m) {
        SendComm comm = answered(m);
        if (comm == null) {
            return;
        }
        comm.connecting().failed(new RdmaException(ErrorCategory.REMOTE,
                "connect: the listener refused the connection: " + m.reason()));
    }
}
