package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A grouped receive fails once: an error the sender sends for another of its buffers after that
 * (a second send that does not fit, a second stalled write) finds it ended and is dropped, and the
 * communicator's other receives go on.
 */
@Timeout(60)
class GroupedReceiveFailureTest extends PeerFixture {
    private static final long SIZE = 64 * 1024;

    @Test
    void twoSendsThatDoNotFitOneGroupedReceiveFailItAloneAndTheOthersGoOn() throws Exception {
        connectPair();
        HostBuffer src = buffer(2 * SIZE);
        HostBuffer dst = buffer(4 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest other = recv.irecv(1, new long[] {dst.address + 3 * SIZE}, new long[] {SIZE}, new int[] {9},
                new MrHandle[] {dstMr});
        RecvRequest group = recv.irecv(2, new long[] {dst.address, dst.address + SIZE}, new long[] {SIZE, SIZE},
                new int[] {1, 2}, new MrHandle[] {dstMr, dstMr});
        SendRequest tooLarge1 = send.isend(src.address, 2 * SIZE, 1, srcMr);
        SendRequest tooLarge2 = send.isend(src.address, 2 * SIZE, 2, srcMr);
        assertNotNull(other);
        assertNotNull(group);
        RdmaException failure = failureOf(group);
        assertTrue(failure.getMessage().contains("did not fit"), failure.getMessage());
        failureOf(tooLarge1);
        failureOf(tooLarge2);
        for (int i = 0; i < 50; i++) {
            a.progress();
            b.progress();
        }
        assertNull(recv.liveness().dead(), "the receive communicator is not condemned");
        SendRequest fits = send.isend(src.address, 100, 9, srcMr);
        long[] sizes = new long[1];
        long deadline = System.nanoTime() + 10_000_000_000L;
        boolean done = false;
        while (!done) {
            assertTrue(System.nanoTime() < deadline, "the other receive done within 10 s");
            a.progress();
            b.progress();
            done = testOk(fits, null) & testOk(other, sizes);
        }
        assertEquals(100, sizes[0]);
    }

    /**
     * Two small sends go out before their grouped receive is posted and are held; the first does
     * not fit its buffer, which fails the receive, and the second, held for the other buffer, is
     * dropped with it: its eager buffer goes back and its credit is used up, and a later receive of
     * the second tag takes the next send.
     */
    @Test
    void aHeldMessageForABufferOfAReceiveThatFailedIsDroppedNotKept() throws Exception {
        connectPair();
        HostBuffer src = buffer(4096);
        HostBuffer dst = buffer(4096);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        SendRequest big = send.isend(src.address, 200, 1, srcMr);
        SendRequest small = send.isend(src.address + 1000, 50, 2, srcMr);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!(testOk(big, null) & testOk(small, null)) || recv.heldEagerMessages() < 2) {
            assertTrue(System.nanoTime() < deadline, "both sends out and held within 10 s");
            a.progress();
            b.progress();
        }
        RecvRequest group = recv.irecv(2, new long[] {dst.address, dst.address + 1000}, new long[] {100, 100},
                new int[] {1, 2}, new MrHandle[] {dstMr, dstMr});
        failureOf(group);
        assertEquals(0, recv.heldEagerMessages(), "nothing held for the failed receive");
        RecvRequest next = recv.irecv(1, new long[] {dst.address + 2000}, new long[] {100}, new int[] {2},
                new MrHandle[] {dstMr});
        SendRequest third = send.isend(src.address + 3000, 30, 2, srcMr);
        long[] sizes = new long[1];
        while (!(testOk(third, null) & testOk(next, sizes))) {
            assertTrue(System.nanoTime() < deadline, "the next send of tag 2 and its receive done");
            a.progress();
            b.progress();
        }
        assertEquals(30, sizes[0]);
    }

    private static boolean testOk(Request request, long[] sizes) throws RdmaException {
        return request.test(sizes);
    }
}
