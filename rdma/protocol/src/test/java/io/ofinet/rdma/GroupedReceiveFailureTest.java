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

    private static boolean testOk(Request request, long[] sizes) throws RdmaException {
        return request.test(sizes);
    }
}
