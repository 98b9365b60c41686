package io.ofinet.rdma;

import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.MrException;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.PeerLiveness;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.Peers;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Signal;
import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * An endpoint's duties that need not run at every progress step: keepalives and the liveness and
 * stall checks of its connected communicators, dropping the requests of idle ones, and the release
 * of quarantined mailboxes. They run from progress when the clock passes their deadline (every
 * {@link #PERIOD_NANOS}), so the fast path reads the clock once and does nothing more. Owned by the endpoint, like its engine.
 */
final class SlowDuties {
    private static final System.Logger LOG = System.getLogger(SlowDuties.class.getName());
    /** How often the duties run. */
    static final long PERIOD_NANOS = 1_000_000L;
    /**
     * A gap between runs longer than this means the endpoint was not progressed at all (the
     * watchdog steps one the application left within 0.8 s): the time is not counted as peers'
     * silence.
     */
    static final long NOT_LISTENING_NANOS = 1_000_000_000L;

    private final HostMemory memory;
    private final EndpointPools pools;
    /** The endpoint's peers, whose unused addresses the duties sweep; set by {@link #open}. */
    private Peers peers;
    private final long quarantineNanos;
    /** Written with the endpoint held; volatile so that the watchdog may read it without taking the endpoint. */
    private volatile long nextRunNanos;
    /** Mailboxes of closed send communicators, kept registered a while for late control writes. */
    private final ArrayDeque<ClosedMailbox> quarantine = new ArrayDeque<>();

    /**
     * What a closed send communicator leaves behind for a while: its mailbox, still registered, and
     * what identifies a late announcement for it. Not the communicator itself, which is released
     * at its close.
     */
    record ClosedMailbox(int commId, int token, long memory, MrHandle mr, long closedNanos) {
    }

    SlowDuties(HostMemory memory, EndpointPools pools, long peerTimeoutMs) {
        this.memory = memory;
        this.pools = pools;
        this.quarantineNanos = peerTimeoutMs * 1_000_000L;
    }

    /** The endpoint's peers exist once its rails are open. */
    void open(Peers endpointPeers) {
        this.peers = endpointPeers;
    }

    /**
     * Whether the duties ran within {@code nanos} before {@code now}: someone drives progress. May be
     * asked without the endpoint held (the watchdog's first look).
     */
    boolean ranWithin(long now, long nanos) {
        return now - (nextRunNanos - PERIOD_NANOS) < nanos;
    }

    /** Runs the duties when they are due at {@code now} (System.nanoTime, the step's clock); returns whether they ran. */
    boolean runIfDue(long now, List<SendComm> sends, List<RecvComm> recvs) {
        if (now - nextRunNanos < 0) {
            return false;
        }
        long gap = now - (nextRunNanos - PERIOD_NANOS);
        boolean wasDeaf = nextRunNanos != 0 && gap > NOT_LISTENING_NANOS;
        nextRunNanos = now + PERIOD_NANOS;
        if (wasDeaf) {
            // For example a provider call that blocked (libfabric 1.17's shm spins on a stopped
            // peer's region lock): peers that kept talking would otherwise be condemned for it.
            LOG.log(Level.DEBUG, "endpoint not progressed for {0} ms: not counted as silence", gap / 1_000_000);
            for (int i = 0; i < sends.size(); i++) {
                excuse(sends.get(i), gap, now);
            }
            for (int i = 0; i < recvs.size(); i++) {
                excuse(recvs.get(i), gap, now);
            }
        }
        for (int i = 0; i < sends.size(); i++) {
            SendComm comm = sends.get(i);
            if (comm.connectedAndOpen()) {
                check(comm, Signal.KEEPALIVE_TO_RECEIVER, now);
            }
            comm.trimIfIdle(now);
        }
        for (int i = 0; i < recvs.size(); i++) {
            RecvComm comm = recvs.get(i);
            if (comm.connectedAndOpen()) {
                check(comm, Signal.KEEPALIVE_TO_SENDER, now);
            }
            comm.trimIfIdle(now);
        }
        if (!quarantine.isEmpty()) {
            release(now);
        }
        peers.sweep(now);
        return true;
    }

    private static void excuse(PeerLiveness.Peered comm, long gap, long now) {
        if (comm.liveness() != null) {
            comm.liveness().notListening(gap, now);
        }
    }

    private void check(PeerLiveness.Peered comm, Signal keepalive, long now) {
        Connection peer = comm.connection();
        PeerLiveness liveness = comm.liveness();
        if (liveness.keepaliveDue(now)) {
            RmaOp op = pools.ops.acquire();
            if (op != null) {
                liveness.keepaliveSent(now);
                peer.sendImmediate(op, "keepalive", Immediate.signal(keepalive, peer.peerCommId(), 0),
                        liveness);
            }
        }
        liveness.check(now);
    }

    /** Keeps a closed send communicator's mailbox registered for a while. */
    void quarantine(SendComm comm) {
        quarantine.add(new ClosedMailbox(comm.id(), comm.token(), comm.mailbox().address(), comm.mailbox().mr(),
                System.nanoTime()));
    }

    /**
     * Deregisters a mailbox ({@code mr} may be null: never registered) and frees its memory: one
     * whose receiver writes nothing more into it, or never learned of it.
     */
    void releaseMailbox(long memory, MrHandle mr) {
        deregister(mr);
        this.memory.free(memory);
    }

    /** Mailboxes of closed send communicators still kept. */
    int mailboxesKept() {
        return quarantine.size();
    }

    /** The mailbox still kept of closed send communicator {@code id}, or null. */
    ClosedMailbox quarantined(int id) {
        for (ClosedMailbox mailbox : quarantine) {
            if (mailbox.commId() == id) {
                return mailbox;
            }
        }
        return null;
    }

    /**
     * The receiver of closed send communicator {@code id} said its last word (its token in {@code
     * upper}): the mailbox kept for it goes now. False when none is kept for that communicator.
     */
    boolean releaseMailbox(int id, long upper, ArrivalChecks checks) {
        for (ClosedMailbox mailbox : quarantine) {
            if (mailbox.commId() == id && checks.carriesToken(mailbox.token(), upper)) {
                quarantine.remove(mailbox);
                releaseMailbox(mailbox.memory(), mailbox.mr());
                return true;
            }
        }
        return false;
    }

    /** Releases quarantined mailboxes older than the peer timeout. */
    void release(long now) {
        while (!quarantine.isEmpty() && now - quarantine.peek().closedNanos() > quarantineNanos) {
            ClosedMailbox mailbox = quarantine.poll();
            releaseMailbox(mailbox.memory(), mailbox.mr());
        }
    }

    /**
     * The endpoint closes: deregisters every quarantined mailbox and returns their memory, to be
     * freed once the rails are closed (until then a peer's write may still be on its way in).
     */
    List<Long> releaseAll() {
        List<Long> memory = new ArrayList<>(quarantine.size());
        for (ClosedMailbox mailbox = quarantine.poll(); mailbox != null; mailbox = quarantine.poll()) {
            deregister(mailbox.mr());
            memory.add(mailbox.memory());
        }
        return memory;
    }

    private static void deregister(MrHandle mr) {
        if (mr == null) {
            return;
        }
        try {
            mr.close();
        } catch (MrException e) {
            LOG.log(Level.WARNING, "deregistering a mailbox: {0}", e.getMessage());
        }
    }
}
