package io.ofinet.rdma;

import io.ofinet.rdma.progress.PeerQueue;

/** Registering a communicator's liveness with the queues of every destination it posts to. */
final class PeerQueues {
    private PeerQueues() {
    }

    static void listen(PeerQueue.Listener listener, PeerQueue[]... groups) {
        for (PeerQueue[] group : groups) {
            for (PeerQueue queue : group) {
                queue.revive();
                queue.listen(listener);
            }
        }
    }

    static void unlisten(PeerQueue.Listener listener, PeerQueue[]... groups) {
        for (PeerQueue[] group : groups) {
            for (PeerQueue queue : group) {
                queue.unlisten(listener);
            }
        }
    }
}
