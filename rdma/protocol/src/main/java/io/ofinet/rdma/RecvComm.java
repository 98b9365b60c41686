package io.ofinet.rdma;

/**
 * The receiving side of a connection: the sender's communicator id, its rail addresses, and
 * where to write control messages (its mailbox address, slot size and control-rail keys).
 */
public final class RecvComm implements AutoCloseable {
    private final RdmaEndpoint endpoint;
    private final int id;
    final ListenComm listen;
    final int peerCommId;
    final long peerMailbox;
    final int peerSlotBytes;
    final long[] peerMailboxKeys;
    final long[] dataPeers;
    final long[] controlPeers;
    boolean acceptSent;
    RdmaException failure;
    boolean closed;

    RecvComm(RdmaEndpoint endpoint, int id, ListenComm listen, int peerCommId, long peerMailbox, int peerSlotBytes,
            long[] peerMailboxKeys, long[] dataPeers, long[] controlPeers) {
        this.endpoint = endpoint;
        this.id = id;
        this.listen = listen;
        this.peerCommId = peerCommId;
        this.peerMailbox = peerMailbox;
        this.peerSlotBytes = peerSlotBytes;
        this.peerMailboxKeys = peerMailboxKeys;
        this.dataPeers = dataPeers;
        this.controlPeers = controlPeers;
    }

    public int id() {
        return id;
    }

    /** The sender's communicator id. */
    public int peerCommId() {
        return peerCommId;
    }

    /** The sender's mailbox: remote address of slot 0, for the control rails' registrations. */
    public long peerMailbox() {
        return peerMailbox;
    }

    public int peerSlotBytes() {
        return peerSlotBytes;
    }

    /** The sender's mailbox key on control rail {@code rail}. */
    public long peerMailboxKey(int rail) {
        return peerMailboxKeys[rail];
    }

    public long dataPeer(int rail) {
        return dataPeers[rail];
    }

    public long controlPeer(int rail) {
        return controlPeers[rail];
    }

    public RdmaEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public void close() {
        endpoint.closeRecv(this);
    }
}
