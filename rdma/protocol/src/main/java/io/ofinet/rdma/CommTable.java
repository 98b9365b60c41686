package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * An endpoint's communicators: their ids, found by id for what arrives (arrays, so that a lookup
 * allocates nothing), and the connected ones, walked by index from progress. Owned by the
 * endpoint, like everything of it.
 */
final class CommTable {
    private final IdAllocator sendIds = new IdAllocator(Limits.MAX_COMMS, "send communicator ids");
    private final IdAllocator recvIds = new IdAllocator(Limits.MAX_COMMS, "receive communicator ids");
    private final SendComm[] sends = new SendComm[Limits.MAX_COMMS];
    private final RecvComm[] recvs = new RecvComm[Limits.MAX_COMMS];
    private final List<SendComm> connectedSends = new ArrayList<>();
    private final List<RecvComm> connectedRecvs = new ArrayList<>();
    /** The tokens of the communicators last closed under each id (0: none): what arrives late for them. */
    private final int[] closedSendTokens = new int[Limits.MAX_COMMS];
    private final int[] closedRecvTokens = new int[Limits.MAX_COMMS];

    int newSendId() throws RdmaException {
        return sendIds.allocate();
    }

    int newRecvId() throws RdmaException {
        return recvIds.allocate();
    }

    void add(SendComm comm) {
        sends[comm.id()] = comm;
    }

    void add(RecvComm comm) {
        recvs[comm.id()] = comm;
    }

    /** A send communicator whose connection never started: its id is free again. */
    void abandonSend(int sendId) {
        sends[sendId] = null;
        sendIds.free(sendId);
    }

    /** A receive communicator id taken for a connection that was refused: free again. */
    void abandonRecv(int recvId) {
        recvs[recvId] = null;
        recvIds.free(recvId);
    }

    SendComm send(int id) {
        return sends[id];
    }

    RecvComm recv(int id) {
        return recvs[id];
    }

    /** Connected: walked by progress from now on. */
    void connected(SendComm comm) {
        connectedSends.add(comm);
    }

    void connected(RecvComm comm) {
        connectedRecvs.add(comm);
    }

    List<SendComm> connectedSends() {
        return connectedSends;
    }

    List<RecvComm> connectedRecvs() {
        return connectedRecvs;
    }

    /** Forgets a send communicator: its id is free again and progress no longer walks it. */
    void remove(SendComm comm) {
        closedSendTokens[comm.id()] = comm.token();
        sends[comm.id()] = null;
        connectedSends.remove(comm);
        sendIds.free(comm.id());
    }

    void remove(RecvComm comm) {
        closedRecvTokens[comm.id()] = comm.token();
        recvs[comm.id()] = null;
        connectedRecvs.remove(comm);
        recvIds.free(comm.id());
    }

    /** The token of the send communicator last closed under {@code id}, or 0. */
    int closedSendToken(int id) {
        return closedSendTokens[id];
    }

    /** The token of the receive communicator last closed under {@code id}, or 0. */
    int closedRecvToken(int id) {
        return closedRecvTokens[id];
    }

    /** Whether a send or receive communicator is still open, besides the send communicators {@code besides} names. */
    boolean anyOpen(Predicate<SendComm> besides) {
        for (SendComm comm : sends) {
            if (comm != null && !besides.test(comm)) {
                return true;
            }
        }
        for (RecvComm comm : recvs) {
            if (comm != null) {
                return true;
            }
        }
        return false;
    }

    /** The send communicators still open. */
    List<SendComm> openSends() {
        List<SendComm> open = new ArrayList<>();
        for (SendComm comm : sends) {
            if (comm != null) {
                open.add(comm);
            }
        }
        return open;
    }

    List<RecvComm> openRecvs() {
        List<RecvComm> open = new ArrayList<>();
        for (RecvComm comm : recvs) {
            if (comm != null) {
                open.add(comm);
            }
        }
        return open;
    }
}
