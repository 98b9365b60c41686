package io.ofinet.rdma;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;

/**
 * What the eager path's tests share: two hosts on the in-memory provider, a connected pair of
 * communicators, and source and destination slabs registered once.
 */
abstract class EagerFixture extends TwoHostFixture {
    static final int CANARY = 64;
    static final int SLAB = 320 * 1024;

    Pair connect(MemProvider memProvider, int rails, String extra) throws Exception {
        ConnectedPair comms = openAndConnect(memProvider, Layouts.mem(rails, extra));
        return new Pair(comms.send(), comms.recv());
    }

    Pair pair(ListenComm listen) throws Exception {
        ConnectedPair comms = ConnectionTest.establish(a, b, listen);
        return new Pair(comms.send(), comms.recv());
    }

    record Pair(SendComm send, RecvComm recv) {
    }

    /** Source and destination slabs, registered once, for many messages. */
    final class Slabs {
        final HostBuffer src = buffer(SLAB).pattern(11);
        final HostBuffer dst = buffer(SLAB + CANARY);
        final MrHandle srcMr;
        final MrHandle dstMr;

        Slabs() throws Exception {
            srcMr = register(a, deviceA, src);
            dstMr = register(b, deviceB, dst);
        }
    }
}
