package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Receives that fail, and what they leave behind: the control buffers of their announcements, their
 * sequence numbers, and connections a closed listener never handed out.
 */
@Timeout(60)
class ReceiveFailureTest extends PeerFixture {
    /** Larger than any eager buffer: every receive of it is announced. */
    private static final long LARGE = 1 << 20;

    private RecvRequest postLarge(RecvComm comm, RdmaEndpoint endpoint) throws Exception {
        HostBuffer dst = buffer(LARGE);
        return comm.irecv(1, new long[] {dst.address}, new long[] {LARGE}, new int[] {1},
                new MrHandle[] {registered(endpoint, dst)});
    }

    @Test
    void receivesAbandonedWhileTheirAnnouncementsAreInFlightGiveTheirControlBuffersBack() throws Exception {
        connectPair();
        for (int i = 0; i < 20; i++) {
            b.progress();
        }
        int before = b.pools.controlBuffersInUse();
        RecvRequest[] posted = new RecvRequest[8];
        // Held throughout, so that no step (the watchdog's) reads the announcements' completions first.
        b.lock();
        try {
            for (int i = 0; i < posted.length; i++) {
                posted[i] = postLarge(recv, b);
                assertNotNull(posted[i]);
            }
            assertEquals(before + posted.length, b.pools.controlBuffersInUse(), "one control buffer per announcement");
            // Condemned before a step has read the announcements' completions: each receive is abandoned.
            recv.connection().condemn(new RdmaException(ErrorCategory.REMOTE, "the sender's process ended"));
        } finally {
            b.unlock();
        }
        for (RecvRequest r : posted) {
            failureOf(r);
        }
        for (int i = 0; i < 20; i++) {
            a.progress();
            b.lock();
            try {
                b.progressEveryRail();
            } finally {
                b.unlock();
            }
        }
        assertEquals(before, b.pools.controlBuffersInUse(), "control buffers given back once the writes ended");
    }

    /**
     * More than the window's 256 numbers of receives whose announcements fail, when they complete or
     * already when they are posted: a failed receive that kept its number would stop irecv at the 257th.
     * The fault is armed for writes only (an announcement is an fi_writedata on the in-memory
     * provider): a keepalive falling due in any step between the arming and the announcement, the
     * watchdog's or this thread's own, is a message and passes it by.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void receivesWhoseAnnouncementFailedLeaveTheWindowSoThatLaterOnesCanBePosted(boolean atPost) throws Exception {
        connectPair();
        for (int i = 0; i < 300; i++) {
            if (atPost) {
                provider.faults().failNextPosts(b.railSet.controlEndpoint(0), MemFaults.Ops.WRITES, 1, FiErrno.FI_EIO);
            } else {
                provider.faults().failNextCompletions(b.railSet.controlEndpoint(0), MemFaults.Ops.WRITES, 1,
                        FiErrno.FI_EIO);
            }
            RecvRequest r = postLarge(recv, b);
            assertNotNull(r, "receive " + i + " could not be posted");
            RdmaException e = failureOf(r);
            assertTrue(e.getMessage().contains("the announcement did not reach the sender"), e.getMessage());
        }
    }

    /** Endpoints {@code a} and {@code b} on a new in-memory provider, and a listen communicator of b's. */
    private ListenComm listener() throws Exception {
        provider = io.ofinet.fabric.mem.MemProvider.create();
        a = endpoint();
        b = endpoint();
        return b.listen();
    }

    @Test
    void aConnectionNeverAcceptedHearsAtOnceThatTheListenerClosed() throws Exception {
        ListenComm listen = listener();
        SendComm connected = connectUnaccepted(listen);
        listen.close(); // accept() was never called: the connection waited in the listener
        assertTheReceiverClosed(connected);
    }

    /**
     * The listener closes while none of the receiving endpoint's operations is free: the close waits
     * for one to tell the sender of the connection it never accepted, whose send then fails for the
     * close, not for the receiver's silence after peerTimeoutMs.
     */
    @Test
    void aConnectionNeverAcceptedHearsOfTheListenersCloseOnceAnOperationIsFree() throws Exception {
        members = "\"peerTimeoutMs\": 5000";
        ListenComm listen = listener();
        SendComm connected = connectUnaccepted(listen);
        List<RmaOp> taken = takeAllOps(b);
        Thread closer = new Thread(listen::close, "closeListen");
        closer.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!closedUnderLock(listen)) {
            assertTrue(System.nanoTime() < deadline, "the close began within 10 s");
            Thread.sleep(1);
        }
        Thread.sleep(100);
        giveBack(b, taken);
        closer.join(10_000);
        assertFalse(closer.isAlive(), "the close returned");
        assertTheReceiverClosed(connected);
    }

    @Test
    void aConnectionWhoseAcceptWasOnItsWayWhenTheListenerClosedHearsItToo() throws Exception {
        ListenComm listen = listener();
        assertEquals(null, a.connect(listen.handle()));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (listen.pending() == 0) {
            assertTrue(System.nanoTime() < deadline, "the CONNECT did not arrive");
            b.readQueues();
        }
        assertEquals(1, listen.handshaking, "the ACCEPT is posted, its completion not yet read");
        listen.close();
        SendComm connected = null;
        while (connected == null) {
            assertTrue(System.nanoTime() < deadline, "no connection");
            b.progress();
            connected = a.connect(listen.handle());
        }
        assertTheReceiverClosed(connected);
    }

    /** Whether {@code listen}'s close began: its first try to tell the senders, with no operation free. */
    private boolean closedUnderLock(ListenComm listen) {
        b.lock();
        try {
            return listen.closed;
        } finally {
            b.unlock();
        }
    }

    /** Connects a's send communicator to {@code listen}, whose connection {@code accept} never returns. */
    private SendComm connectUnaccepted(ListenComm listen) throws Exception {
        SendComm connected = null;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (connected == null) {
            assertTrue(System.nanoTime() < deadline, "no connection");
            connected = a.connect(listen.handle());
            b.progress();
        }
        return connected;
    }

    /**
     * A send on {@code connected} that waits for its receive's announcement fails with the
     * receiver's close, not with silence after peerTimeoutMs.
     */
    private void assertTheReceiverClosed(SendComm connected) throws Exception {
        HostBuffer src = buffer(LARGE);
        MrHandle mr = registered(a, src);
        long start = System.nanoTime();
        SendRequest s = null;
        RdmaException failure = null;
        while (failure == null && System.nanoTime() - start < 5_000_000_000L) {
            b.progress();
            try {
                if (s == null) {
                    s = connected.isend(src.address, LARGE, 1, mr);
                } else {
                    s.test(null);
                }
            } catch (RdmaException e) {
                failure = e;
            }
        }
        assertNotNull(failure, "the send did not fail");
        assertTrue(failure.getMessage().contains("the receiver closed the connection"), failure.getMessage());
    }
}
