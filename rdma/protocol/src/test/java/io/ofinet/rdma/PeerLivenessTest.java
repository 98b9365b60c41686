package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that dies or falls silent fails the requests of its communicators within peerTimeoutMs;
 * one that only progresses, or never calls at all, stays alive. Closes are in {@link PeerCloseTest}.
 */
@Timeout(60)
class PeerLivenessTest extends PeerFixture {
    /**
     * The peer timeout of the tests in which a peer must stay alive. Keepalives go out every quarter
     * of it from whichever thread steps the endpoint; a test thread that stops stepping (descheduled
     * on a loaded machine, inside a step or between two) is stood in for by the watchdog within two
     * of its periods, the time it takes to find an endpoint nobody progressed. What is left of the
     * timeout after a keepalive interval and those is the margin for the machine's load: at 1 s, more
     * than half a second. With {@link #FAST}'s 300 ms nothing was left for the watchdog (300 ms
     * against 75 + 400), and a test thread held off for a quarter of a second failed the test.
     * Scaled by {@link TestTime}'s factor.
     */
    private static final long ALIVE_TIMEOUT_MS = TestTime.ms(1000);

    /** {@code a} connected to {@code b} with {@link #ALIVE_TIMEOUT_MS}. */
    private void connectPairThatStaysAlive() throws Exception {
        members = "\"peerTimeoutMs\": " + ALIVE_TIMEOUT_MS;
        connectPair();
    }

    @Test
    void aSilentPeerFailsTheOutstandingReceiveAfterThePeerTimeout() throws Exception {
        connectPair();
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
        connectPair();
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
        connectPair();
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
    void theWatchdogKeepsAPeerThatNeverCallsAlive() throws Exception {
        connectPairThatStaysAlive();
        RecvRequest request = post(recv, b);
        long until = System.nanoTime() + 3 * ALIVE_TIMEOUT_MS * 1_000_000L; // three peer timeouts; a's thread never calls
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
        connectPairThatStaysAlive();
        RecvRequest request = post(recv, b);
        long until = System.nanoTime() + 3 * ALIVE_TIMEOUT_MS * 1_000_000L; // three peer timeouts
        while (System.nanoTime() < until) {
            a.progress(); // the sender has nothing to send yet, but is alive
            assertTrue(!request.test(null));
        }
        sendsInto(request);
    }

    /**
     * A keepalive the provider fails with a reset connection (FI_ECANCELED: rxm resets a connection
     * when a write meets a key its peer just deregistered, and connects again at the next post) says
     * nothing for sure of the peer: the connection goes on. The peer is condemned by what says it
     * cannot be reached (below), or by its silence.
     */
    @Test
    void keepalivesFailedByAResetLeaveThePeerAlive() throws Exception {
        connectPairThatStaysAlive();
        for (RdmaEndpoint e : new RdmaEndpoint[] {a, b}) {
            provider.faults().failNextCompletions(e.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, 3,
                    FiErrno.FI_ECANCELED);
        }
        // Idle, so that only the failed keepalives could condemn, until all six failed.
        long deadline = System.nanoTime() + TestTime.nanos(20_000);
        while (provider.faults().completionFaultsLeft(a.railSet.controlEndpoint(0)) > 0
                || provider.faults().completionFaultsLeft(b.railSet.controlEndpoint(0)) > 0) {
            assertTrue(System.nanoTime() < deadline, "three keepalives each way within 20 s");
            a.progress();
            b.progress();
        }
        for (int i = 0; i < 100; i++) { // their failures reported
            a.progress();
            b.progress();
        }
        sendsInto(post(recv, b));
    }

    /** 100 bytes sent into {@code request}, which takes them: the pair still works. */
    private void sendsInto(RecvRequest request) throws Exception {
        HostBuffer src = buffer();
        SendRequest s = send.isend(src.address, 100, 1, registered(a, src));
        assertNotNull(s);
        long[] sizes = new long[1];
        Await.done(request, sizes, "the receive", a);
        assertEquals(100, sizes[0]);
    }

    /**
     * A keepalive whose post the provider fails as unreachable ({@code FI_EHOSTUNREACH}) condemns the
     * peer, as an error completion saying so does.
     */
    @Test
    void aKeepaliveRefusedAsUnreachableAtItsPostCondemnsThePeer() throws Exception {
        connectPairThatStaysAlive();
        provider.faults().failNextPosts(a.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, 1, FiErrno.FI_EHOSTUNREACH);
        long deadline = System.nanoTime() + TestTime.nanos(20_000);
        while (send.liveness().dead() == null) { // idle: only keepalives go
            assertTrue(System.nanoTime() < deadline, "condemned within 20 s");
            a.progress();
            b.progress();
        }
        String why = send.liveness().dead().getMessage();
        assertTrue(why.contains("keepalive") && why.contains("FI_EHOSTUNREACH"), why);
    }

    @Test
    void aVanishedPeerFailsItsCommunicatorWhileOthersKeepWorking() throws Exception {
        provider = MemProvider.create();
        a = endpoint();
        b = endpoint();
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
        connectPair();
        HostBuffer src = buffer();
        MrHandle srcMr = registered(a, src);
        assertNotNull(post(recv, b));
        SendRequest finished = send.isend(src.address, 64, 1, srcMr);
        for (long deadline = System.nanoTime() + 5_000_000_000L; !finished.finished(); ) {
            a.progress();
            b.progress();
            assertTrue(System.nanoTime() < deadline, "the send did not finish");
        }
        HostBuffer large = buffer(16384);
        // Above eagerMaxSize, with no receive for it: its request to send goes out and it waits.
        SendRequest waiting = send.isend(large.address, large.size, 1, registered(a, large));
        provider.faults().vanish(b.railSet.controlEndpoint(0));
        provider.faults().vanish(b.railSet.dataEndpoint(0));
        assertEquals(ErrorCategory.REMOTE, failureOf(waiting).category());
        RdmaException e = assertThrows(RdmaException.class, () -> finished.test(null));
        assertEquals(ErrorCategory.REMOTE, e.category());
    }
}
