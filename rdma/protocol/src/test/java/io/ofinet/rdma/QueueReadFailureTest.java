package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An endpoint whose completion queue cannot be read: the failure is the endpoint's, not a
 * request's, so a send still in flight stays outstanding; and a close that meets it still closes
 * its communicator, then says why it could not drain. The endpoint goes on once its queue reads.
 */
@Timeout(60)
class QueueReadFailureTest extends PeerFixture {
    private static final int BYTES = 1 << 20;

    @Test
    void aSendInFlightStaysOutstandingAndItsCloseClosesThenSaysWhy() throws Exception {
        connectPair();
        HostBuffer src = buffer(BYTES).pattern(3);
        HostBuffer dst = buffer(BYTES);
        MrHandle srcMr = registered(a, src);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {BYTES}, new int[] {1},
                new MrHandle[] {registered(b, dst)});
        assertFalse(r.test(null), "announced; its data comes as b progresses, which it does not now");
        SendRequest s = send.isend(src.address, BYTES, 1, srcMr);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!send.operationsInFlight() && System.nanoTime() < deadline) {
            assertFalse(s.test(null));
        }
        assertTrue(send.operationsInFlight(), "the send's writes are in flight");

        Endpoint data = a.railSet.dataEndpoint(0);
        provider.faults().failNextQueueReads(data, Integer.MAX_VALUE, FiErrno.FI_EIO);
        RdmaException tested = assertThrows(RdmaException.class, () -> s.test(null));
        assertEquals(ErrorCategory.SYSTEM, tested.category());
        assertTrue(tested.getMessage().startsWith("reading the completion queue of rail 0"), tested.getMessage());
        assertTrue(s.inUse(), "the send is still outstanding: its writes are in flight");

        RdmaException closing = assertThrows(RdmaException.class, send::close);
        assertTrue(closing.getMessage().startsWith("reading the completion queue of rail 0"), closing.getMessage());
        assertTrue(send.isClosed(), "closed all the same");
        assertNull(a.comms.send(send.id()), "and gone from its endpoint's table");

        provider.faults().failNextQueueReads(data, 0, 0);
        ConnectionTest.establish(a, b, b.listen()); // the endpoint goes on
    }
}
