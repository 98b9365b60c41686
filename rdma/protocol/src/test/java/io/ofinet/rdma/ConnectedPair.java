package io.ofinet.rdma;

/** A connection the tests made: its send communicator, and the receive communicator that accepted it. */
record ConnectedPair(SendComm send, RecvComm recv) {
}
