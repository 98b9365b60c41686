package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;

/** Connecting and accepting until done, for the peer programs: both steps are non-blocking. */
final class Connections {
    private Connections() {
    }

    /** Steps {@code endpoint.connect(handle)} until it connects; fails when the deadline passes first. */
    static SendComm connect(RdmaEndpoint endpoint, byte[] handle, long deadlineNanos) throws RdmaException {
        SendComm send = null;
        while (send == null && System.nanoTime() < deadlineNanos) {
            send = endpoint.connect(handle);
        }
        if (send == null) {
            throw new IllegalStateException("not connected");
        }
        return send;
    }

    /** Steps {@code endpoint.accept(listen)} until it accepts; fails when the deadline passes first. */
    static RecvComm accept(RdmaEndpoint endpoint, ListenComm listen, long deadlineNanos) throws RdmaException {
        RecvComm recv = null;
        while (recv == null && System.nanoTime() < deadlineNanos) {
            recv = endpoint.accept(listen);
        }
        if (recv == null) {
            throw new IllegalStateException("no connection accepted");
        }
        return recv;
    }
}
