package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A peer that dies or falls silent fails the requests of its communicators within peerTimeoutMs. */
@Timeout(60)
class PeerLivenessTest {
    private static final String FAST = "\"peerTimeoutMs\": 300";
    private final List<Device> devices = new ArrayList<>();
    private final java.util.Map<RdmaEndpoint, Device> deviceOf = new java.util.HashMap<>();
    private final List<AutoCloseable> buffers = new ArrayList<>();
    private MemProvider provider;

    private RdmaEndpoint endpoint() throws Exception {
        Device device = Device.open(provider, Layouts.mem(1, FAST));
        devices.add(device);
        RdmaEndpoint endpoint = device.openEndpoint();
        deviceOf.put(endpoint, device);
        return endpoint;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable b : buffers) {
            b.close();
        }
        for (Device d : devices) {
            d.close();
        }
    }

    private MrHandle registered(RdmaEndpoint endpoint, HostBuffer buffer) throws Exception {
        MrHandle mr = deviceOf.get(endpoint).registrar().register(endpoint.rails(), buffer.address, buffer.size,
                Use.USER_BUFFER);
        buffers.add(0, mr::close);
        return mr;
    }

    private HostBuffer buffer() {
        HostBuffer b = new HostBuffer(4096);
        buffers.add(b);
        return b;
    }

    private RecvRequest post(RecvComm recv, RdmaEndpoint endpoint) throws Exception {
        HostBuffer dst = buffer();
        return recv.irecv(1, new long[] {dst.address}, new long[] {4096}, new int[] {1},
                new MrHandle[] {registered(endpoint, dst)});
    }

    /** Two endpoints of one in-memory provider, a connected to b. */
    private record Pair(RdmaEndpoint a, RdmaEndpoint b, SendComm send, RecvComm recv) {
    }

    private Pair pair() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        ConnectedPair comms = ConnectionTest.establish(a, b, b.listen());
        return new Pair(a, b, comms.send(), comms.recv());
    }

    /** Tests {@code request} until it fails, and returns the failure. */
    private static RdmaException failureOf(Request request) {
        return assertThrows(RdmaException.class, () -> {
            while (!request.test(null)) {
                Thread.onSpinWait();
            }
        });
    }

    @Test
    void aSilentPeerFailsTheOutstandingReceiveAfterThePeerTimeout() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        ListenComm listen = b.listen();
        ConnectedPair pair = ConnectionTest.establish(a, b, listen);
        RecvComm recv = pair.recv();
        RecvRequest request = post(recv, b);
        long start = System.nanoTime();
        // a is alive but paused, as if stopped: holding it keeps even the watchdog out.
        a.lock();
        RdmaException e;
        try {
            e = failureOf(request);
        } finally {
            a.unlock();
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().matches("receive communicator \\d+ \\(from send communicator \\d+\\): peer \\S+"
                + " sent nothing for 300 ms \\(peerTimeoutMs\\); it is presumed dead"), e.getMessage());
        assertTrue(elapsedMs >= 250 && elapsedMs < 5000, "failed after " + elapsedMs + " ms");
        assertThrows(RdmaException.class, () -> post(recv, b), "the communicator stays failed");
    }

    @Test
    void theSilenceBeforeAReceiveIsPostedDoesNotCount() throws Exception {
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        RecvComm recv = p.recv();
        // a is paused for twice the peer timeout while b listens with nothing outstanding: its
        // silence is no evidence, since b waited for nothing.
        a.lock();
        try {
            long until = System.nanoTime() + 600_000_000L;
            while (System.nanoTime() < until) {
                b.progress();
            }
            long posted = System.nanoTime();
            RecvRequest request = post(recv, b);
            RdmaException e = failureOf(request);
            long elapsedMs = (System.nanoTime() - posted) / 1_000_000;
            assertTrue(e.getMessage().contains("sent nothing for 300 ms"), e.getMessage());
            assertTrue(elapsedMs >= 250, "the receive failed " + elapsedMs + " ms after its post: the silence"
                    + " before it was counted");
        } finally {
            a.unlock();
        }
    }

    @Test
    void timeThisSideWasNotListeningIsNotThePeersSilence() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
        RecvComm recv = pair.recv();
        RecvRequest request = post(recv, b);
        // Neither side is progressed for 1.5 s (five peer timeouts): b, stuck, heard nothing, but
        // it was not listening either.
        a.lock();
        b.lock();
        try {
            Thread.sleep(1500);
        } finally {
            b.unlock();
            a.unlock();
        }
        long until = System.nanoTime() + 200_000_000L;
        while (System.nanoTime() < until) {
            assertTrue(!request.test(null), "nothing was sent");
            a.progress();
        }
        // Real silence is still found: a paused while b listens.
        a.lock();
        try {
            RdmaException e = failureOf(request);
            assertTrue(e.getMessage().contains("sent nothing for 300 ms"), e.getMessage());
        } finally {
            a.unlock();
        }
    }

    @Test
    void aSenderThatClosesFailsTheReceivesItWillNeverServeAndLaterOnes() throws Exception {
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        SendComm send = p.send();
        RecvComm recv = p.recv();
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
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        SendComm send = p.send();
        RecvComm recv = p.recv();
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

    @Test
    void aReceivePostedAfterTheSenderClosedMidSendFailsRatherThanWaits() throws Exception {
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        SendComm send = p.send();
        RecvComm recv = p.recv();
        HostBuffer src = new HostBuffer(64 << 10);
        buffers.add(src);
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
        HostBuffer dst = new HostBuffer(64 << 10);
        buffers.add(dst);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {dst.size}, new int[] {1},
                new MrHandle[] {registered(b, dst)});
        RdmaException e = failureOf(r);
        // The request to send is not among those the close says were sent.
        assertEquals("irecv: the sender closed the connection", e.getMessage());
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
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        SendComm send = p.send();
        RecvComm recv = p.recv();
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

    @Test
    void theWatchdogKeepsAPeerThatNeverCallsAlive() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        ListenComm listen = b.listen();
        ConnectedPair pair = ConnectionTest.establish(a, b, listen);
        RecvComm recv = pair.recv();
        RecvRequest request = post(recv, b);
        long until = System.nanoTime() + 1_200_000_000L; // four peer timeouts; a's thread never calls
        while (System.nanoTime() < until) {
            assertTrue(!request.test(null));
            Thread.sleep(1);
        }
        assertTrue(Watchdog.watches(a) && Watchdog.watches(b));
        a.close();
        b.close();
        assertTrue(!Watchdog.watches(a) && !Watchdog.watches(b), "closed endpoints are not watched");
    }

    @Test
    void keepalivesKeepAPeerThatOnlyProgressesAlive() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        ListenComm listen = b.listen();
        ConnectedPair pair = ConnectionTest.establish(a, b, listen);
        SendComm send = pair.send();
        RecvComm recv = pair.recv();
        RecvRequest request = post(recv, b);
        long until = System.nanoTime() + 1_200_000_000L; // four peer timeouts
        while (System.nanoTime() < until) {
            a.progress(); // the sender has nothing to send yet, but is alive
            assertTrue(!request.test(null));
        }
        HostBuffer src = buffer();
        SendRequest s = send.isend(src.address, 100, 1, registered(a, src));
        assertNotNull(s);
        long[] sizes = new long[1];
        Await.done(request, sizes, "the receive", a);
        assertEquals(100, sizes[0]);
    }

    @Test
    void aVanishedPeerFailsItsCommunicatorWhileOthersKeepWorking() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = endpoint();
        RdmaEndpoint b = endpoint();
        RdmaEndpoint c = endpoint();
        ListenComm toB = b.listen();
        ListenComm toC = c.listen();
        SendComm sendB = ConnectionTest.establish(a, b, toB).send();
        ConnectedPair pairC = ConnectionTest.establish(a, c, toC);
        SendComm sendC = pairC.send();
        RecvComm recvC = pairC.recv();
        HostBuffer src = buffer();
        MrHandle srcMr = registered(a, src);
        SendRequest lost = sendB.isend(src.address, 64, 1, srcMr);
        provider.faults().vanish(b.railSet.controlEndpoint(0));
        provider.faults().vanish(b.railSet.dataEndpoint(0));
        long start = System.nanoTime();
        // An eager send is done once posted: the communicator's later calls report the loss.
        RdmaException e = assertThrows(RdmaException.class, () -> {
            SendRequest next = lost;
            while (true) {
                if (next == null || next.test(null)) {
                    next = sendB.isend(src.address, 64, 1, srcMr);
                }
                c.progress();
            }
        });
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue((System.nanoTime() - start) / 1_000_000 < 5000);
        // a and c are unaffected.
        RecvRequest r = post(recvC, c);
        SendRequest s = sendC.isend(src.address, 64, 1, srcMr);
        long[] sizes = new long[1];
        Await.done(r, sizes, "the receive on c", a);
        assertEquals(64, sizes[0]);
    }

    /**
     * Once a peer is condemned no request of its communicators reports success, not even one that
     * had finished before and was not yet tested: a later request can finish before an earlier one,
     * which then fails.
     */
    @Test
    void aSendFinishedButNotYetTestedFailsOnceItsPeerIsCondemned() throws Exception {
        Pair p = pair();
        RdmaEndpoint a = p.a();
        RdmaEndpoint b = p.b();
        SendComm send = p.send();
        RecvComm recv = p.recv();
        HostBuffer src = buffer();
        MrHandle srcMr = registered(a, src);
        assertNotNull(post(recv, b));
        SendRequest finished = send.isend(src.address, 64, 1, srcMr);
        for (long deadline = System.nanoTime() + 5_000_000_000L; !finished.finished(); ) {
            a.progress();
            b.progress();
            assertTrue(System.nanoTime() < deadline, "the send did not finish");
        }
        HostBuffer large = new HostBuffer(16384);
        buffers.add(large);
        // Above eagerMaxSize, with no receive for it: its request to send goes out and it waits.
        SendRequest waiting = send.isend(large.address, large.size, 1, registered(a, large));
        provider.faults().vanish(b.railSet.controlEndpoint(0));
        provider.faults().vanish(b.railSet.dataEndpoint(0));
        assertEquals(ErrorCategory.REMOTE, failureOf(waiting).category());
        RdmaException e = assertThrows(RdmaException.class, () -> finished.test(null));
        assertEquals(ErrorCategory.REMOTE, e.category());
    }
}
