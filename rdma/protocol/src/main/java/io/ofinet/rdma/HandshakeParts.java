package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.progress.ProgressEngine;

/**
 * What the handshake's two sides ({@link Handshake} accepts, {@link Connector} connects) use of their
 * endpoint: its communicator table, progress engine, pools, the parts a new communicator takes, its
 * closes and its slow duties. The handshake is made before the rails open; the endpoint hands it
 * these once it has opened them.
 */
record HandshakeParts(CommTable comms, ProgressEngine engine, EndpointPools pools, CommParts commParts,
        CommClosing closing, SlowDuties duties) {
}
