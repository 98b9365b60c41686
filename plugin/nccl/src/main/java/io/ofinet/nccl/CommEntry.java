package io.ofinet.nccl;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;

/** What the door keeps for a communicator C holds: the plugin's handle, its requests and scratch arrays. */
final class CommEntry {
    static final int LISTEN = 1;
    static final int SEND = 2;
    static final int RECV = 3;
    /** Buffers of one grouped receive at most, as the plugin's maxRecvs. */
    static final int MAX_RECVS = 8;

    final int type;
    final Handles.ListenComm listen;
    final Handles.SendComm send;
    final Handles.RecvComm recv;
    /** Null for a listen communicator. */
    final RequestSlots requests;
    /** A receive's or flush's arguments as the plugin takes them, and the sizes test reports. */
    final long[] addresses = new long[MAX_RECVS];
    final long[] sizes = new long[MAX_RECVS];
    final int[] tags = new int[MAX_RECVS];
    final Handles.MrHandle[] mrs = new Handles.MrHandle[MAX_RECVS];
    final long[] received = new long[MAX_RECVS];
    /** Set by the one close of the plugin's communicator: NCCL's, or a deregMr's (see {@link #closeIn}). */
    private boolean closed;
    /**
     * The thread that last posted or tested this communicator's requests: written by that thread,
     * read by a deregMr on another only as a hint ({@link #drivenElsewhere}).
     */
    Thread driver;

    private CommEntry(int type, Handles.ListenComm listen, Handles.SendComm send, Handles.RecvComm recv,
            long handle) {
        this.type = type;
        this.listen = listen;
        this.send = send;
        this.recv = recv;
        this.requests = type == LISTEN ? null : new RequestSlots(handle);
    }

    /** A listen communicator's entry, under the door's {@code handle}. */
    static CommEntry listen(Handles.ListenComm comm, long handle) {
        return new CommEntry(LISTEN, comm, null, null, handle);
    }

    static CommEntry send(Handles.SendComm comm, long handle) {
        return new CommEntry(SEND, null, comm, null, handle);
    }

    static CommEntry recv(Handles.RecvComm comm, long handle) {
        return new CommEntry(RECV, null, null, comm, handle);
    }

    /** The plugin's handle of a send or receive communicator. */
    Handles.Comm comm() {
        return type == SEND ? send : recv;
    }

    /**
     * Closes the plugin's communicator, once: false, doing nothing, when it was closed already. Its
     * flushes the door keeps unposted are dropped first. Closed by NCCL's close, or earlier by a
     * deregMr of memory its requests still use (NCCL aborting), after which NCCL's close finds it
     * closed. The close may throw; the communicator is closed all the same. A second close waits for
     * the first to end.
     */
    synchronized boolean closeIn(NetPlugin plugin) throws NetException {
        if (closed) {
            return false;
        }
        closed = true;
        if (requests != null) {
            requests.dropWaitingFlushes();
        }
        if (type == SEND) {
            plugin.closeSend(send);
        } else if (type == RECV) {
            plugin.closeRecv(recv);
        } else {
            plugin.closeListen(listen);
        }
        return true;
    }

    /**
     * Whether a live thread other than this one drives the communicator: the last to post or test
     * its requests. NCCL drives them from its proxy's progress thread, which it stops before its
     * teardown deregisters and closes from another.
     */
    boolean drivenElsewhere() {
        Thread d = driver;
        return d != null && d != Thread.currentThread() && d.isAlive();
    }

    static String name(int type) {
        return type == LISTEN ? "listen communicator" : type == SEND ? "send communicator" : "receive communicator";
    }

    /** A context from v11+'s per-communicator {@code init}: its id and the connections' configuration. */
    record Context(long commId, ConnectConfig config) {
    }

    /**
     * A registration, with the entry of the communicator it was made for: deregMr goes through that
     * communicator, and its flushes waiting to be posted use the memory without the plugin knowing.
     */
    record Registration(Handles.MrHandle mr, CommEntry owner) {
        Handles.Comm comm() {
            return owner.comm();
        }

        /** Whether a flush the door keeps, not yet posted, uses the memory. */
        boolean heldByDoor() {
            return heldBy(owner.requests, mr);
        }

        /**
         * Whether a flush {@code requests} keeps unposted uses {@code mr}. The slots belong to the
         * thread that drives their communicator, and a deregistration may be tried from another: a read
         * that meets them changing answers "held", and the deregistration is tried again later.
         */
        static boolean heldBy(RequestSlots requests, Handles.MrHandle mr) {
            try {
                return requests != null && requests.flushWaitsWith(mr);
            } catch (RuntimeException changing) {
                return true;
            }
        }
    }
}
