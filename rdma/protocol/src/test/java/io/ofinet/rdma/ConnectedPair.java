package io.ofinet.rdma;

import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;

/** A connection the tests made: its send communicator, and the receive communicator that accepted it. */
record ConnectedPair(SendComm send, RecvComm recv) {
}
