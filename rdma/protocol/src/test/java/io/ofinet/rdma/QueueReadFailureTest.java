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
 * its communicator and tells the receiver, then says why it could not drain. The endpoint goes on
 * once its queue reads.
 */
@Timeout(60)
class QueueReadFailureTest extends PeerFixture {
    private static final int BYTES = 1 << 20;

    @Test
    void aSendInFlightStaysOutstandingAndItsCloseClosesThenSaysWhy() throws Exception {
        // Long enough that a stall of this thread does not condemn either side: the receiver learns
        // of the close from its signal, not from the sender's silence.
        members = "\"peerTimeoutMs\": 5000";
        connectPair();
        HostBuffer src = buffer(BYTES).pattern(3);
        HostBuffer dst = buffer(BYTES);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {BYTES}, new int[] {1},
                new MrHandle[] {dstMr});
        assertFalse(r.test(null), "announced");
        // b takes nothing more until the end, not even when the watchdog steps it: a's writes stay
        // in flight.
        Endpoint bData = b.railSet.dataEndpoint(0);
        provider.faults().failNextQueueReads(bData, Integer.MAX_VALUE, FiErrno.FI_EIO);
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
        provider.faults().failNextQueueReads(bData, 0, 0);
        // The receiver was told: its receive ends, with the data or with the sender's close.
        boolean ended = false;
        for (long end = System.nanoTime() + 10_000_000_000L; !ended && System.nanoTime() - end < 0; ) {
            try {
                ended = r.test(null);
            } catch (RdmaException closed) {
                ended = true;
            }
        }
        assertTrue(ended, "the receive ended");
        RdmaException told = assertThrows(RdmaException.class, () -> {
            long until = System.nanoTime() + 10_000_000_000L;
            RecvRequest next = null;
            while ((next == null || !next.test(null)) && System.nanoTime() - until < 0) {
                if (next == null) {
                    next = recv.irecv(1, new long[] {dst.address}, new long[] {BYTES}, new int[] {2},
                            new MrHandle[] {dstMr});
                }
            }
        }, "a receive after the close learns of it");
        assertTrue(told.getMessage().contains("the sender closed the connection"), told.getMessage());
        ConnectionTest.establish(a, b, b.listen()); // the endpoints go on
    }
}
