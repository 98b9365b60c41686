package io.ofinet.rdma;

import io.ofinet.mr.MrHandle;

/**
 * The sending side of a connection. While connecting it owns its control mailbox (where the
 * receiver writes control messages) and waits for the ACCEPT; once connected it knows the
 * receiver's communicator id and its rail addresses.
 */
public final class SendComm implements AutoCloseable {
    private final RdmaEndpoint endpoint;
    private final int id;
    final long deadlineNanos;
    final long mailbox;
    final MrHandle mailboxMr;
    final int slotBytes;
    boolean connectSent;
    boolean accepted;
    RdmaException failure;
    int peerCommId;
    long[] dataPeers;
    long[] controlPeers;
    boolean closed;

    SendComm(RdmaEndpoint endpoint, int id, long deadlineNanos, long mailbox, MrHandle mailboxMr, int slotBytes) {
        this.endpoint = endpoint;
        this.id = id;
        this.deadlineNanos = deadlineNanos;
        this.mailbox = mailbox;
        this.mailboxMr = mailboxMr;
        this.slotBytes = slotBytes;
    }

    /** This side's communicator id, in immediate data the receiver sends. */
    public int id() {
        return id;
    }

    /** The receiver's communicator id. */
    public int peerCommId() {
        return peerCommId;
    }

    /** The receiver's address handle on data rail {@code rail}. */
    public long dataPeer(int rail) {
        return dataPeers[rail];
    }

    /** The receiver's address handle on control rail {@code rail}. */
    public long controlPeer(int rail) {
        return controlPeers[rail];
    }

    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    boolean connected() {
        return connectSent && accepted && failure == null;
    }

    @Override
    public void close() throws RdmaException {
        endpoint.closeSend(this);
    }
}
