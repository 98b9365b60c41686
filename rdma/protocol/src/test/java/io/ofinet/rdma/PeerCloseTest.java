package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that closes its communicator: what was sent before the close still arrives, and the
 * requests it will never serve fail at once instead of waiting for {@code peerTimeoutMs}.
 */
@Timeout(60)
class PeerCloseTest extends PeerFixture {
    @Test
    void aSenderThatClosesFailsTheReceivesItWillNeverServeAndLaterOnes() throws Exception {
        connectPair();
        RecvRequest served = post(recv, b);
        RecvRequest unserved = post(recv, b);
        HostBuffer src = buffer();
        SendRequest s = send.isend(src.address, 64, 1, registered(a, src));
        long[] sizes = new long[1];
        Await.done(served, sizes, "the served receive", a);
        assertEquals(64, sizes[0]);
        send.close();
        RdmaException e = failureOf(unserved);
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().endsWith("the sender closed the connection before sending the message"),
                e.getMessage());
        RecvRequest late = post(recv, b);
        RdmaException later = assertThrows(RdmaException.class, () -> late.test(null));
        assertEquals("irecv: the sender closed the connection", later.getMessage());
    }

    @Test
    void aMessageSentBeforeTheSenderClosedReachesAReceivePostedAfterTheClose() throws Exception {
        connectPair();
        HostBuffer src = buffer().pattern(3);
        MrHandle srcMr = registered(a, src);
        // Eager sends: each is done at once, its message on its way to the receiver.
        for (int i = 0; i < 2; i++) {
            SendRequest s = send.isend(src.address + 100 * i, 40 + i, 1, srcMr);
            Await.done(s, null, "eager send " + i, a);
        }
        send.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        awaitSenderClose(recv, b, deadline);
        HostBuffer dst = buffer();
        MrHandle dstMr = registered(b, dst);
        long[] sizes = new long[1];
        for (int i = 0; i < 2; i++) {
            RecvRequest r = recv.irecv(1, new long[] {dst.address + 100 * i}, new long[] {100}, new int[] {1},
                    new MrHandle[] {dstMr});
            Await.done(r, sizes, "message " + i, b);
            assertEquals(40 + i, sizes[0]);
            assertArrayEquals(src.bytes(100 * i, 40 + i), dst.bytes(100 * i, 40 + i), "message " + i);
        }
        RecvRequest beyond = post(recv, b);
        RdmaException e = assertThrows(RdmaException.class, () -> beyond.test(null));
        assertEquals("irecv: the sender closed the connection", e.getMessage());
    }

    /**
     * A receive that finished before its sender closed, and was not tested yet, still succeeds when
     * the sender's process ends after the close: the close was confirmed behind every write, so its
     * end takes nothing away. A receiver slower than its senders at the end of a job meets this.
     */
    @Test
    void aReceiveFinishedBeforeTheSenderClosedStillSucceedsOnceThePeerIsCondemned() throws Exception {
        connectPair();
        RecvRequest served = post(recv, b);
        HostBuffer src = buffer().pattern(5);
        SendRequest s = send.isend(src.address, 64, 1, registered(a, src));
        Await.done(s, null, "the send", a);
        send.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!recv.senderWritesEnded()) {
            assertTrue(System.nanoTime() < deadline, "the sender's close was not confirmed");
            b.progress();
        }
        assertTrue(served.finished(), "the receive finished before the close");
        RecvRequest unserved = post(recv, b);
        recv.connection().condemn(new RdmaException(ErrorCategory.REMOTE, "the sender's process ended"));
        long[] sizes = new long[1];
        assertTrue(served.test(sizes), "the finished receive reports its success");
        assertEquals(64, sizes[0]);
        assertThrows(RdmaException.class, () -> unserved.test(null), "a receive it never served fails");
    }

    @Test
    void aReceivePostedAfterTheSenderClosedMidSendFailsRatherThanWaits() throws Exception {
        connectPair();
        HostBuffer src = buffer(64 << 10);
        // Too large to go eagerly: with no receive announced it sends a request to send after rtsDelayUs.
        SendRequest s = send.isend(src.address, 64 << 10, 1, registered(a, src));
        assertNotNull(s);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (recv.heldEagerMessages() == 0) {
            assertTrue(System.nanoTime() < deadline, "the request to send did not arrive");
            a.progress();
            b.progress();
        }
        send.close();
        awaitSenderClose(recv, b, deadline);
        HostBuffer dst = buffer(64 << 10);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {dst.size}, new int[] {1},
                new MrHandle[] {registered(b, dst)});
        RdmaException e = failureOf(r);
        // The request to send is not among those the close says were sent.
        assertEquals("irecv: the sender closed the connection", e.getMessage());
    }

    /**
     * A receive posted once the sender said it closed fails saying so, even when the close is
     * complete only later. Here the close signal overtakes the message sent before it (as shm's
     * control rail can overtake its data rail, and as tcp's confirmation on one data rail can come
     * before another's): it is handed to the receiver first, saying one message was sent; a receive
     * of another tag is posted; then the message arrives, is held, and nothing more can come.
     */
    @Test
    void aReceivePostedBeforeTheCloseIsCompleteFailsAsPostedAfterTheClose() throws Exception {
        connectPair();
        b.lock();
        try {
            recv.arrivals().closed(1, 1); // on engine rail 1, control rail 0 after the one data rail
        } finally {
            b.unlock();
        }
        assertTrue(recv.senderSaidClosed());
        HostBuffer other = buffer();
        RecvRequest late = recv.irecv(1, new long[] {other.address}, new long[] {4096}, new int[] {2},
                new MrHandle[] {registered(b, other)});
        assertFalse(late.test(null), "the message the close counts has not arrived");
        HostBuffer src = buffer().pattern(4);
        SendRequest s = send.isend(src.address, 48, 1, registered(a, src));
        Await.done(s, null, "the eager send", a);
        RdmaException e = failureOf(late);
        assertEquals("irecv: the sender closed the connection", e.getMessage());
        assertEquals(1, recv.heldEagerMessages(), "the message waits for its receive");
        RecvRequest r = post(recv, b);
        long[] sizes = new long[1];
        Await.done(r, sizes, "the held message", b);
        assertEquals(48, sizes[0]);
    }

    /** Drives the receiver until it has seen its sender's close signal. */
    private static void awaitSenderClose(RecvComm recv, RdmaEndpoint receiver, long deadline) throws Exception {
        while (!recv.senderSaidClosed()) {
            assertTrue(System.nanoTime() < deadline, "the sender's close did not arrive");
            receiver.progress();
        }
    }

    @Test
    void anIsendAfterTheReceiverClosedFailsAtItsTest() throws Exception {
        connectPair();
        post(recv, b);
        recv.close(); // tells the sender, and waits for its confirmation (the watchdog drives a)
        HostBuffer src = buffer();
        MrHandle mr = registered(a, src);
        RdmaException e = assertThrows(RdmaException.class, () -> {
            for (int i = 0; i < 1000; i++) {
                SendRequest s = send.isend(src.address, 64, 1, mr);
                if (s != null) {
                    s.test(null);
                }
                a.progress();
            }
        });
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertEquals("isend: the receiver closed the connection", e.getMessage());
    }
}
