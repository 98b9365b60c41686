package io.ofinet.rdma.rail;

import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.progress.PeerQueue;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.util.List;

/**
 * The other side of a connection as the handshake learned it: the peer's communicator id, its
 * address on each data and control rail, and the queue this endpoint's posts to each of them wait
 * in. Made by the handshake; released once, when its communicator closes.
 */
public final class Connection {
    /** For {@link #inserted}: control rail 0's address is not in the address vector yet. */
    public static final long NOT_INSERTED = -1;

    private final Peers peers;
    private final RailSet rails;
    private final ProgressEngine engine;
    private final int peerCommId;
    /** What the peer's communicator expects in the upper half of the CQ data of every signal, error and announcement (its token). */
    private final int peerToken;
    private final long[] dataPeers;
    private final long[] controlPeers;
    private final PeerQueue[] dataQueues;
    private final PeerQueue[] controlQueues;
    /** The peer's process when this side can check it (same host), else null. */
    private final ProcessIdentity process;
    private boolean released;

    private Connection(Peers peers, ProgressEngine engine, boolean checkProcess, int peerCommId, long[] dataPeers,
            long[] controlPeers, ProcessIdentity process, int peerToken) {
        this.peers = peers;
        this.rails = peers.rails();
        this.engine = engine;
        this.peerToken = peerToken;
        // Checked only if this side sees the peer in /proc now (not so under hidepid, for one).
        this.process = process != null && process.sameHostAs(ProcessCheck.SELF)
                && checkProcess && ProcessCheck.ended(process) == null ? process : null;
        this.peerCommId = peerCommId;
        this.dataPeers = dataPeers.clone();
        this.controlPeers = controlPeers.clone();
        this.dataQueues = new PeerQueue[dataPeers.length];
        this.controlQueues = new PeerQueue[controlPeers.length];
        for (int r = 0; r < dataPeers.length; r++) {
            dataQueues[r] = peers.queue(r, dataPeers[r]);
        }
        for (int c = 0; c < controlPeers.length; c++) {
            controlQueues[c] = peers.queue(dataPeers.length + c, controlPeers[c]);
        }
    }

    /**
     * The connection to the sender of handshake message {@code m}: its data and control addresses
     * inserted into this endpoint's address vectors, rail by rail.
     *
     * @param checkProcess whether to watch the peer's process where it is on this host
     * @param control0 control rail 0's address handle when the caller inserted it already (to
     *     answer the message), or {@link #NOT_INSERTED}; on failure that use stays the caller's
     * @throws FabricException when an address cannot be inserted; the uses taken here have ended
     */
    public static Connection inserted(Peers peers, ProgressEngine engine, boolean checkProcess, int peerCommId,
            HandshakeMessage m, long control0) throws FabricException {
        int dataRails = m.dataRails();
        long[] dataPeers = new long[dataRails];
        long[] controlPeers = new long[m.controlRails()];
        int data = 0;
        int control = 0;
        try {
            for (; data < dataRails; data++) {
                dataPeers[data] = peers.insert(data, m.dataAddresses().get(data), m.process());
            }
            for (; control < controlPeers.length; control++) {
                controlPeers[control] = control == 0 && control0 != NOT_INSERTED ? control0
                        : peers.insert(dataRails + control, m.controlAddresses().get(control), m.process());
            }
        } catch (FabricException e) {
            for (int r = 0; r < data; r++) {
                peers.release(r, dataPeers[r]);
            }
            for (int c = control0 == NOT_INSERTED ? 0 : 1; c < control; c++) {
                peers.release(dataRails + c, controlPeers[c]); // not the caller's: it releases that itself
            }
            throw e;
        }
        return new Connection(peers, engine, checkProcess, peerCommId, dataPeers, controlPeers, m.process(), m.token());
    }

    /**
     * Its communicator closed: its uses of the peer's addresses end (the address vector entries go
     * once no connection uses them). Once; later calls do nothing.
     */
    public void release() {
        if (released) {
            return;
        }
        released = true;
        for (int r = 0; r < dataPeers.length; r++) {
            peers.release(r, dataPeers[r]);
        }
        for (int c = 0; c < controlPeers.length; c++) {
            peers.release(dataPeers.length + c, controlPeers[c]);
        }
    }

    /**
     * The upper half of a zero-byte message's CQ data (where it has 8 bytes): for data, a segment's
     * length (0: a zero-byte send), else the peer's token.
     */
    public long upperHalf(int word) {
        return Immediate.type(word) == Immediate.TYPE_DATA ? 0 : peerToken & 0xffffffffL;
    }

    /** The peer communicator's token, which what this side sends it carries. */
    public int peerToken() {
        return peerToken;
    }

    /** The peer's communicator id, named in the immediate data this side sends. */
    public int peerCommId() {
        return peerCommId;
    }

    /** The peer's address handle on data rail {@code rail}. */
    public long dataPeer(int rail) {
        return dataPeers[rail];
    }

    /** The peer's address handle on control rail {@code rail}. */
    public long controlPeer(int rail) {
        return controlPeers[rail];
    }

    /**
     * What became of the peer's process, when it is on this host and has ended (killed, exited);
     * null while it runs or is stopped, or when it cannot be checked.
     */
    public String processEnded() {
        return process == null ? null : ProcessCheck.ended(process);
    }

    /**
     * The peer is gone: every destination of this connection is condemned, which fails what waits
     * in their queues and tells every communicator watching them.
     */
    public void condemn(RdmaException cause) {
        for (PeerQueue[] group : new PeerQueue[][] {dataQueues, controlQueues}) {
            for (PeerQueue queue : group) {
                engine.condemn(queue, cause);
            }
        }
    }

    /** The peer's address on control rail 0 as libfabric prints it, for messages. */
    public String address() {
        return peers.address(dataPeers.length, controlPeers[0]);
    }

    public PeerQueue dataQueue(int rail) {
        return dataQueues[rail];
    }

    public PeerQueue controlQueue(int rail) {
        return controlQueues[rail];
    }

    /**
     * Posts {@code op} as a zero-byte message to the peer, whose immediate data {@code word} is all
     * it carries (a signal, an error, a zero-byte send's data), to its first control rail, through
     * that destination's queue.
     */
    public void sendImmediate(RmaOp op, String what, int word, RmaOp.Owner owner) {
        op.set(RmaOp.Kind.SENDDATA, rails.controlEndpoint(0), 0, what, owner);
        op.buf = 0;
        op.len = 0;
        op.desc = 0;
        op.data = rails.immediate(word, upperHalf(word));
        op.peer = controlPeers[0];
        op.submit(controlQueues[0]);
    }

    /**
     * Posts {@code op} as a zero-byte message to the peer's data rail {@code rail}, on this side's data rail
     * endpoint: behind the writes posted there before it, where the provider keeps that order.
     */
    public void sendImmediateOnData(RmaOp op, int rail, String what, int word, RmaOp.Owner owner) {
        op.set(RmaOp.Kind.SENDDATA, rails.dataEndpoint(rail), rail, what, owner);
        op.buf = 0;
        op.len = 0;
        op.desc = 0;
        op.data = rails.immediate(word, upperHalf(word));
        op.peer = dataPeers[rail];
        op.submit(dataQueues[rail]);
    }

    /**
     * Registers a communicator's liveness with the queue of every destination of this connection.
     * The handshake just completed, so a condemnation of an earlier connection to them lapses.
     */
    public void watch(PeerQueue.Listener listener) {
        for (PeerQueue[] group : new PeerQueue[][] {dataQueues, controlQueues}) {
            for (PeerQueue queue : group) {
                queue.revive();
                queue.listen(listener);
            }
        }
    }

    /** The communicator closed: the fate of these destinations no longer concerns it. */
    public void unwatch(PeerQueue.Listener listener) {
        for (PeerQueue[] group : new PeerQueue[][] {dataQueues, controlQueues}) {
            for (PeerQueue queue : group) {
                queue.unlisten(listener);
            }
        }
    }

    /**
     * Adds to {@code to} each destination of this connection with operations the provider has not
     * completed, or posts it refused waiting to be posted again.
     */
    public void queuesNotDrained(List<PeerQueue> to) {
        for (PeerQueue[] group : new PeerQueue[][] {dataQueues, controlQueues}) {
            for (PeerQueue queue : group) {
                if (!queue.drained() && !to.contains(queue)) {
                    to.add(queue);
                }
            }
        }
    }
}
