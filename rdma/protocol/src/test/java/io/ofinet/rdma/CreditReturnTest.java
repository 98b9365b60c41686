package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receiver returns the sender's eager credits in batches, each in a signal that needs one of
 * its operations. Credits that fell due while no operation was free go back later, at the
 * receiver's next look at its communicator's stalls: else a sender that had spent them all waited
 * for good, and its receiver, holding too few messages to announce its receives, with it.
 */
@Timeout(60)
class CreditReturnTest extends PeerFixture {

    @Test
    void creditsDueWhileNoOperationWasFreeGoBackOnceOneIs() throws Exception {
        members = "\"peerTimeoutMs\": 2000";
        connectPair();
        HostBuffer src = buffer();
        HostBuffer dst = buffer();
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        List<RmaOp> taken = new ArrayList<>();
        b.lock();
        try {
            for (RmaOp op = b.pools.ops.acquire(); op != null; op = b.pools.ops.acquire()) {
                taken.add(op);
            }
        } finally {
            b.unlock();
        }
        // Every credit used while the receiver has no operation free: the returns fall due, and wait.
        for (int i = 0; i < 64; i++) {
            RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {100}, new int[] {5},
                    new MrHandle[] {dstMr});
            SendRequest s = send.isend(src.address + i, 10, 5, srcMr);
            assertNotNull(r);
            assertNotNull(s);
            complete(r, s);
        }
        b.lock();
        try {
            taken.forEach(b.pools.ops::release);
        } finally {
            b.unlock();
        }
        RecvRequest last = recv.irecv(1, new long[] {dst.address}, new long[] {100}, new int[] {5},
                new MrHandle[] {dstMr});
        SendRequest s = send.isend(src.address, 10, 5, srcMr);
        complete(last, s);
    }

    /** Drives both endpoints until both requests are done, within 10 s. */
    private void complete(Request r, Request s) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        boolean done = false;
        while (!done) {
            assertTrue(System.nanoTime() < deadline, "the send and its receive done within 10 s");
            a.progress();
            b.progress();
            done = r.test(null) & s.test(null);
        }
    }
}
