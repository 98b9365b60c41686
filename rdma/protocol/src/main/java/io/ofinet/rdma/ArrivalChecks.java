package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.comm.PeerLiveness;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Immediate;
import java.lang.System.Logger.Level;

/**
 * The checks what arrives with immediate data passes before it reaches the communicator it names
 * (docs/PROTOCOL.md, "What a peer can forge"), and the counts of what they drop: malformed,
 * for no open communicator, late for a closed one, forged. Shared by {@link ImmediateDispatcher},
 * {@link SenderSignals} and {@link ReceiverSignals}; used with the endpoint's lock held.
 */
final class ArrivalChecks {
    /** One log for what arrives, whichever class handles it. */
    static final System.Logger LOG = System.getLogger(ImmediateDispatcher.class.getName());

    private final CommTable comms;
    private final RailSet rails;
    private final CommHost host;
    private final int dataRails;

    private long malformed;
    private long unknownComm;
    /** Arrivals for a communicator closed under the id they named: expected, not dropped. */
    private long lateForClosedComm;
    private long forged;

    ArrivalChecks(CommTable comms, RailSet rails, CommHost host, int dataRails) {
        this.comms = comms;
        this.rails = rails;
        this.host = host;
        this.dataRails = dataRails;
    }

    /**
     * The 32-bit word of what a peer sent on {@code rail} as {@code what}, if it is of {@code type}
     * (or any type for -1); else -1, the arrival dropped and counted: it names nothing that can be
     * trusted, and progress goes on for everyone else.
     */
    long checked(long data, int type, int rail, long len, String what) {
        int word;
        try {
            word = Immediate.check(data & 0xffffffffL, dataRails);
        } catch (RdmaException e) {
            malformed("dropping {0} on rail {1}: {2}", what, rail, e.getMessage());
            return -1;
        }
        if (type >= 0 && Immediate.type(word) != type) {
            malformed("dropping {0} of {1} bytes and immediate type {2} on rail {3}", what, len,
                    Immediate.type(word), rail);
            return -1;
        }
        return word & 0xffffffffL;
    }

    /**
     * Receive communicator {@code id} if it is open; else null, {@code what} dropped and counted: as
     * a late word for the one closed under that id when {@code upper} carries its token (where CQ
     * data has 8 bytes; {@code tokened} false where the upper half holds a length), else as naming no
     * open communicator, logged as {@link #malformed} is.
     */
    RecvComm openRecv(int id, boolean tokened, long upper, String what) {
        RecvComm recv = comms.recv(id);
        if (recv != null && !recv.isClosed()) {
            return recv;
        }
        if (tokened && lateForClosedRecv(id, upper)) {
            LOG.log(Level.DEBUG, "dropping {0} for receive communicator {1}: closed", what, id);
        } else if (logged(++unknownComm)) {
            LOG.log(Level.WARNING, "dropping {0} for receive communicator {1}, which is not open ({2} so far)", what,
                    id, unknownComm);
        }
        return null;
    }

    /**
     * Whether what arrived on engine rail {@code rail} for {@code comm} comes from its peer: it
     * carries the communicator's token in {@code upper}, the upper half of its CQ data (where CQ
     * data has 8 bytes), and its source is the peer's address on that rail (where the provider
     * names sources right). If not, it is dropped and counted.
     */
    boolean fromItsPeer(PeerLiveness.Peered comm, int rail, long upper, String what) {
        if (!carriesToken(comm.token(), upper)) {
            return forged(comm, what, "its token");
        }
        return fromItsSource(comm, rail, what);
    }

    /** Whether {@code upper}, the upper half of 8-byte CQ data, is {@code token}; true where it is narrower. */
    boolean carriesToken(int token, long upper) {
        return !rails.wideImmediate() || upper == (token & 0xffffffffL);
    }

    /**
     * Whether an arrival for send communicator {@code comm}, which is not open, is for the one last
     * closed under that id (its token matches, where CQ data carries one): a late word of its peer,
     * expected after a close, not a drop.
     */
    boolean lateForClosedSend(int comm, long upper) {
        return late(comms.closedSendToken(comm), upper);
    }

    boolean lateForClosedRecv(int comm, long upper) {
        return late(comms.closedRecvToken(comm), upper);
    }

    /** Counts a late arrival for a closed communicator whose token was {@code token}; false when it is not one. */
    private boolean late(int token, long upper) {
        boolean late = token != 0 && carriesToken(token, upper);
        if (late) {
            lateForClosedComm++;
        }
        return late;
    }

    /** Whether the provider names {@code comm}'s peer as the source, or names none; if not, counted. */
    boolean fromItsSource(PeerLiveness.Peered comm, int rail, String what) {
        long source = host.arrivalSource();
        if (source == ProgressEngine.SOURCE_UNTOLD) {
            return true;
        }
        Connection peer = comm.connection();
        if (peer == null) {
            // A send communicator whose ACCEPT has not arrived: the receiver may post, and its
            // announcement overtake the ACCEPT on another control rail. The token vouches for it.
            return true;
        }
        long expected = rail < dataRails ? peer.dataPeer(rail) : peer.controlPeer(rail - dataRails);
        return source == expected || forged(comm, what, "its peer's address as source");
    }

    /** Counts an arrival for {@code comm} without what {@code lacking} names, and logs it; false. */
    boolean forged(PeerLiveness.Peered comm, String what, String lacking) {
        forged++;
        comm.forgedArrival();
        if (logged(forged)) {
            LOG.log(Level.WARNING, "dropping a {0} for communicator {1} without {2} ({3} so far): not from its peer",
                    what, commId(comm), lacking, forged);
        }
        return false;
    }

    /**
     * Counts a data segment for {@code comm} that no sender keeping the protocol sends, {@code why}
     * (its buffer's announcement or the sender's way of writing rules it out), and logs it; false.
     */
    boolean contradicted(RecvComm comm, String why) {
        forged++;
        comm.forgedArrival();
        if (logged(forged)) {
            LOG.log(Level.WARNING, "dropping a data segment for receive communicator {0} {1} ({2} so far): not from"
                    + " its peer", comm.id(), why, forged);
        }
        return false;
    }

    private static int commId(PeerLiveness.Peered comm) {
        return comm instanceof SendComm s ? s.id() : ((RecvComm) comm).id();
    }

    /** Counts an arrival that named no open communicator. */
    void unknownComm() {
        unknownComm++;
    }

    /** Counts an arrival for a communicator closed under the id it named. */
    void lateForClosedComm() {
        lateForClosedComm++;
    }

    /**
     * Counts an arrival dropped as malformed and logs it: the first ten, then every thousandth, so
     * that a peer's flood does not flood the log.
     */
    void malformed(String pattern, Object... arguments) {
        malformed++;
        if (logged(malformed)) {
            LOG.log(Level.WARNING, pattern + " ({" + arguments.length + "} so far)", append(arguments, malformed));
        }
    }

    /** Whether the {@code count}th drop of a kind is logged: the first ten, then every thousandth. */
    private static boolean logged(long count) {
        return count <= 10 || count % 1000 == 0;
    }

    private static Object[] append(Object[] arguments, long count) {
        Object[] all = java.util.Arrays.copyOf(arguments, arguments.length + 1);
        all[arguments.length] = count;
        return all;
    }

    /** Arrivals dropped because their immediate data was malformed or missing. */
    long malformedCount() {
        return malformed;
    }

    /** Arrivals dropped because they named no open communicator. */
    long unknownCommCount() {
        return unknownComm;
    }

    long lateForClosedCommCount() {
        return lateForClosedComm;
    }

    /** Arrivals dropped because they lacked the token of the communicator they named. */
    long forgedCount() {
        return forged;
    }
}
