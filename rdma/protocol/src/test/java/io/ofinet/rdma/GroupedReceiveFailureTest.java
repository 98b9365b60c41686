package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A grouped receive fails once: an error the sender sends for another of its buffers after that
 * (a second send that does not fit, a second stalled write) is taken or dropped, and the
 * communicator's other receives go on. An announced receive that failed is reported only once the
 * sender can no longer write into any of its buffers: each has its data, its refusal or a stall, or
 * the sender has closed, or a stall's hold got nothing within the timeout.
 */
@Timeout(60)
class GroupedReceiveFailureTest extends PeerFixture {
    private static final long SIZE = 64 * 1024;
    /** Buffers above 4 KiB take one tagged message. */
    private static final String TAGGED = "\"peerTimeoutMs\": 5000, \"minStripeSize\": 4096, \"eagerMaxSize\": 4096,"
            + " \"writeNotice\": \"tagged\"";
    /** Heads on (a send of {@link #SIZE} before its receive sends one), requests to send after 1 ms. */
    private static final String HEADS = "\"peerTimeoutMs\": 5000, \"eagerHead\": \"on\", \"eagerHeadMinSize\": 16384,"
            + " \"rtsDelayUs\": 1000, \"writeNotice\": \"message\"";

    @Test
    void twoSendsThatDoNotFitOneGroupedReceiveFailItAloneAndTheOthersGoOn() throws Exception {
        connectPair();
        HostBuffer src = buffer(2 * SIZE);
        HostBuffer dst = buffer(4 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest other = recv.irecv(1, new long[] {dst.address + 3 * SIZE}, new long[] {SIZE}, new int[] {9},
                new MrHandle[] {dstMr});
        RecvRequest group = groupOfTwo(dst, dstMr);
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

    /**
     * The first of two announced buffers is refused (the sender's send does not fit it): the
     * receive's failure waits for the send into the second, which is written, and is told only
     * then. Before, the application learnt of the failure while the sender could still write into
     * the second buffer, which it may have reused.
     */
    @Test
    void aFailedReceiveIsToldOnlyOnceItsOtherBufferCanNoLongerBeWritten() throws Exception {
        connectPair();
        HostBuffer src = buffer(2 * SIZE).pattern(7);
        HostBuffer dst = buffer(2 * SIZE).fill((byte) 0);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest group = groupOfTwo(dst, dstMr);
        SendRequest tooLarge = send.isend(src.address, 2 * SIZE, 1, srcMr);
        drive(() -> group.failure() != null, "the refusal reaches the receive");
        failureOf(tooLarge);
        for (int i = 0; i < 200; i++) {
            a.progress();
            assertFalse(group.test(null), "the failure is held while the sender may write into buffer 1");
        }
        assertTrue(group.holdingFailure());
        SendRequest second = send.isend(src.address + SIZE, SIZE, 2, srcMr);
        drive(() -> second.test(null), "the second send is written");
        RdmaException failure = failureOf(group);
        assertTrue(failure.getMessage().contains("did not fit"), failure.getMessage());
        assertArrayEquals(src.bytes(SIZE, (int) SIZE), dst.bytes(SIZE, (int) SIZE),
                "buffer 1 was written before the failure was told");
        assertNull(recv.liveness().dead(), "the receive communicator is not condemned");
        RecvRequest next = recv.irecv(1, new long[] {dst.address}, new long[] {SIZE}, new int[] {2},
                new MrHandle[] {dstMr});
        SendRequest third = send.isend(src.address, SIZE, 2, srcMr);
        drive(() -> testOk(third, null) & testOk(next, null), "the next send of tag 2 and its receive");
    }

    /**
     * A held message that does not fit the first buffer of an announced receive fails it at its
     * post (the receiver refuses it); the failure waits for the second buffer's send all the same.
     */
    @Test
    void aReceiveThatRefusedAHeldMessageHoldsItsFailureForItsAnnouncedBuffer() throws Exception {
        connectPair();
        HostBuffer src = buffer(SIZE).pattern(3);
        HostBuffer dst = buffer(2 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        SendRequest eager = send.isend(src.address, 200, 1, srcMr);
        drive(() -> testOk(eager, null) && recv.heldEagerMessages() == 1, "the eager send held at the receiver");
        RecvRequest group = recv.irecv(2, new long[] {dst.address, dst.address + SIZE}, new long[] {100, SIZE},
                new int[] {1, 2}, new MrHandle[] {dstMr, dstMr});
        assertNotNull(group);
        assertNotNull(group.failure(), "the held message failed the receive at its post");
        assertTrue(group.holdingFailure(), "its second buffer was announced");
        for (int i = 0; i < 200; i++) {
            a.progress();
            assertFalse(group.test(null), "the failure is held while the sender may write into buffer 1");
        }
        SendRequest second = send.isend(src.address, SIZE, 2, srcMr);
        drive(() -> second.test(null), "the second send is written");
        assertTrue(failureOf(group).getMessage().contains("did not fit"));
        assertArrayEquals(src.bytes(0, (int) SIZE), dst.bytes(SIZE, (int) SIZE));
    }

    /** The sender's close ends the wait of a held failure: nothing more can be written. */
    @Test
    void theSendersCloseEndsAHeldFailure() throws Exception {
        connectPair();
        HostBuffer src = buffer(2 * SIZE);
        HostBuffer dst = buffer(2 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest group = groupOfTwo(dst, dstMr);
        SendRequest tooLarge = send.isend(src.address, 2 * SIZE, 1, srcMr);
        failureOf(tooLarge);
        drive(group::holdingFailure, "the receive holds its failure");
        send.close();
        long deadline = System.nanoTime() + 10_000_000_000L;
        RdmaException failure = assertThrows(RdmaException.class, () -> {
            while (!group.test(null)) {
                assertTrue(System.nanoTime() < deadline, "the failure told within 10 s of the sender's close");
                a.progress();
            }
        });
        assertTrue(failure.getMessage().contains("did not fit"), failure.getMessage());
    }

    /**
     * A message that lands in a buffer of a receive holding its failure, written or tagged, is an
     * arrival like any other, counted for the sender's close: once the sender has closed, a later
     * receive it never served fails.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aSendIntoAHeldReceiveCountsForTheSendersClose(boolean tagged) throws Exception {
        members = "\"peerTimeoutMs\": 5000, \"minStripeSize\": 4096, \"eagerMaxSize\": 4096"
                + (tagged ? ", \"writeNotice\": \"tagged\"" : "");
        connectPair();
        HostBuffer src = buffer(4 * 8192);
        HostBuffer dst = buffer(3 * 8192);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest group = groupOf8KiB(dst, dstMr);
        SendRequest tooLarge = send.isend(src.address, 2 * 8192, 1, srcMr);
        failureOf(tooLarge);
        drive(group::holdingFailure, "the receive holds its failure");
        assertEquals(tagged, group.tagged(1), "buffer 1 takes a tagged message");
        SendRequest second = send.isend(src.address + 2 * 8192, 8192, 2, srcMr);
        drive(() -> second.test(null), "the second send");
        assertTrue(failureOf(group).getMessage().contains("did not fit"));
        assertAReceiveTheSenderNeverServesFailsAtItsClose(dst.address + 2 * 8192, dstMr);
    }

    /**
     * The sender gives up on its send into buffer 0 (its writes did not complete in time) and says
     * so: the receive fails, and holds the failure while the sender may still send into buffer 1,
     * as it does, its tagged receive still posted. Before, the receive was abandoned: its failure
     * told at once and buffer 1's tagged receive cancelled, so the sender's message stayed in the
     * provider's queue of unexpected messages, uncounted for the sender's close.
     */
    @Test
    void aSendThatStalledFailsItsReceiveWhichHoldsTheFailureForItsOtherBuffers() throws Exception {
        members = TAGGED;
        connectPair();
        HostBuffer src = buffer(2 * 8192).pattern(5);
        HostBuffer dst = buffer(3 * 8192).fill((byte) 0);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest group = groupOf8KiB(dst, dstMr);
        assertTrue(group.tagged(0) && group.tagged(1), "both buffers take a tagged message");
        stallAtTheSender(src.address, srcMr);
        drive(() -> group.failure() != null, "the sender's error");
        for (int i = 0; i < 200; i++) {
            a.progress();
            assertFalse(group.test(null), "the failure is held while the sender may send into buffer 1");
        }
        SendRequest second = send.isend(src.address + 8192, 8192, 2, srcMr);
        drive(() -> second.test(null), "the second send");
        assertTrue(failureOf(group).getMessage().contains("did not complete (they failed, or stalled"));
        assertArrayEquals(src.bytes(8192, 8192), dst.bytes(8192, 8192), "buffer 1 took the second send");
        assertAReceiveTheSenderNeverServesFailsAtItsClose(dst.address + 2 * 8192, dstMr);
    }

    /**
     * The receiver's own stall check: buffer 0 has its head and nothing more within the timeout (the
     * sender has not run since). The receive fails and holds the failure while the sender may still
     * send into buffer 1; the rest of buffer 0 and buffer 1's send both land before it is told.
     */
    @Test
    void aBufferThatStalledFailsItsReceiveWhichHoldsTheFailureForItsOtherBuffers() throws Exception {
        members = HEADS;
        connectPair();
        HostBuffer src = buffer(2 * SIZE).pattern(9);
        HostBuffer dst = buffer(2 * SIZE).fill((byte) 0);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        SendRequest first = send.isend(src.address, SIZE, 1, srcMr);
        drive(() -> recv.heldEagerMessages() == 1, "the first send's head held at the receiver");
        RecvRequest group = postAndStall(dst, dstMr);
        assertTrue(group.holdingFailure(), "buffer 0 stalled, and the sender may still send into buffer 1");
        assertTrue(group.failure().getMessage().contains("got part of"), group.failure().getMessage());
        assertFalse(group.test(null), "the failure is held");
        SendRequest second = send.isend(src.address + SIZE, SIZE, 2, srcMr);
        RdmaException failure = assertThrows(RdmaException.class, () -> drive(() -> group.test(null), "the failure"));
        assertTrue(failure.getMessage().contains("got part of"), failure.getMessage());
        assertArrayEquals(src.bytes(SIZE, (int) SIZE), dst.bytes(SIZE, (int) SIZE), "buffer 1 written before");
        drive(() -> first.test(null) & second.test(null), "both sends");
        assertArrayEquals(src.bytes(0, (int) SIZE), dst.bytes(0, (int) SIZE), "the rest of buffer 0 landed");
    }

    /**
     * A receive holds its failure (buffer 1 refused the send whose request to send was held for it)
     * for buffer 0, which has its head and nothing more: its stall ends the hold, and the failure is
     * told.
     */
    @Test
    void aStallOfTheLastBufferHeldForEndsTheHold() throws Exception {
        members = HEADS;
        connectPair();
        HostBuffer src = buffer(3 * SIZE);
        HostBuffer dst = buffer(2 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        SendRequest first = send.isend(src.address, SIZE, 1, srcMr);
        drive(() -> recv.heldEagerMessages() == 1, "the first send's head held at the receiver");
        send.isend(src.address + SIZE, 2 * SIZE, 2, srcMr);
        drive(() -> recv.heldEagerMessages() == 2, "the second send's request to send held at the receiver");
        RecvRequest group = postAndStall(dst, dstMr);
        assertTrue(group.failure().getMessage().contains("did not fit"), "buffer 1 refused its send");
        assertFalse(group.holdingFailure(), "buffer 0's stall ended the hold");
        assertTrue(failureOf(group).getMessage().contains("did not fit"));
        drive(() -> first.test(null), "the first send, its rest written into the receive that failed");
    }

    /**
     * A stall's hold that ended (buffer 1 refused by the sender, its tagged receive cancelled) times
     * nothing more: the receive waits for the provider's answer to the cancel, however late, and is
     * not abandoned by the next look at stalls.
     */
    @Test
    void aStallsHoldThatEndedWaitsForItsCancelsUntimed() throws Exception {
        members = TAGGED;
        connectPair();
        HostBuffer src = buffer(4 * 8192);
        HostBuffer dst = buffer(2 * 8192);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        RecvRequest group = groupOf8KiB(dst, dstMr);
        stallAtTheSender(src.address, srcMr);
        drive(group::holdingFailure, "buffer 0's stall");
        provider.faults().holdCancels(b.railSet.dataEndpoint(0), 1, 2_000_000_000L);
        SendRequest tooLarge = send.isend(src.address + 8192, 2 * 8192, 2, srcMr);
        failureOf(tooLarge);
        drive(() -> !group.holdingFailure(), "buffer 1's refusal, which ends the hold");
        holdBoth();
        try {
            recv.checkStalls(System.nanoTime() + 60_000_000_000L, 1_000_000);
            assertFalse(group.test(null), "the cancel of buffer 1's tagged receive is not answered yet");
        } finally {
            releaseBoth();
        }
        assertTrue(failureOf(group).getMessage().contains("did not complete (they failed, or stalled"));
    }

    /**
     * A stall's hold in which nothing arrives within the timeout ends: the sends into the other
     * buffers stalled too, unseen, and the receive is reported.
     */
    @Test
    void aStallsHoldInWhichNothingArrivesWithinTheTimeoutEnds() throws Exception {
        members = HEADS;
        connectPair();
        HostBuffer src = buffer(SIZE);
        HostBuffer dst = buffer(2 * SIZE);
        MrHandle srcMr = registered(a, src);
        MrHandle dstMr = registered(b, dst);
        send.isend(src.address, SIZE, 1, srcMr);
        drive(() -> recv.heldEagerMessages() == 1, "the send's head held at the receiver");
        RecvRequest group = postAndStall(dst, dstMr);
        assertTrue(group.holdingFailure(), "buffer 0 stalled, and the sender may still send into buffer 1");
        holdBoth();
        try {
            recv.checkStalls(System.nanoTime() + 120_000_000_000L, 1_000_000);
            assertFalse(group.holdingFailure(), "the next look ended the hold");
            assertTrue(failureOf(group).getMessage().contains("got part of"));
        } finally {
            releaseBoth();
        }
    }

    /**
     * Posts a receive of 8 KiB at {@code address}, which the sender never serves, and closes the
     * sender: the receive fails for the close once all the sender counted has arrived, not for the
     * sender's silence after peerTimeoutMs.
     */
    private void assertAReceiveTheSenderNeverServesFailsAtItsClose(long address, MrHandle mr) throws Exception {
        RecvRequest unserved = recv.irecv(1, new long[] {address}, new long[] {8192}, new int[] {3},
                new MrHandle[] {mr});
        send.close();
        RdmaException failure = assertThrows(RdmaException.class,
                () -> drive(() -> unserved.test(null), "the unserved receive's failure"));
        assertTrue(failure.getMessage().contains("sender closed"), failure.getMessage());
    }

    /**
     * Posts a receive of two {@link #SIZE} buffers, lets the receiver take what waits for it and looks
     * at its stalls a minute on: both endpoints held meanwhile, so that not even the watchdog drives
     * the sender, which would write the rest of a send whose head arrived.
     */
    private RecvRequest postAndStall(HostBuffer dst, MrHandle dstMr) throws Exception {
        holdBoth();
        try {
            RecvRequest group = groupOfTwo(dst, dstMr);
            for (int i = 0; i < 10; i++) {
                b.progress();
            }
            recv.checkStalls(System.nanoTime() + 60_000_000_000L, 1_000_000);
            return group;
        } finally {
            releaseBoth();
        }
    }

    /** Posts a receive of two 8 KiB buffers at the start of {@code dst}, tags 1 and 2. */
    private RecvRequest groupOf8KiB(HostBuffer dst, MrHandle dstMr) throws RdmaException {
        return recv.irecv(2, new long[] {dst.address, dst.address + 8192}, new long[] {8192, 8192},
                new int[] {1, 2}, new MrHandle[] {dstMr, dstMr});
    }

    /**
     * Sends 8 KiB of tag 1 from {@code address} and runs the sender's stall check a minute on, before
     * the receiver could take the send: the send fails for its stall, and the sender tells the
     * receiver. Both endpoints are held meanwhile, so that not even the watchdog delivers the send.
     */
    private void stallAtTheSender(long address, MrHandle mr) throws Exception {
        SendRequest stalled;
        holdBoth();
        try {
            stalled = send.isend(address, 8192, 1, mr);
            a.progress();
            send.checkStalls(System.nanoTime() + 60_000_000_000L, 1_000_000);
        } finally {
            releaseBoth();
        }
        assertNotNull(stalled.failure(), "the sender's stall check failed its send");
    }

    /** Takes both endpoints from the watchdog, which steps an endpoint left alone for a while. */
    private void holdBoth() {
        a.lock();
        b.lock();
    }

    private void releaseBoth() {
        b.unlock();
        a.unlock();
    }

    /** Posts a receive of two {@link #SIZE} buffers at the start of {@code dst}, tags 1 and 2. */
    private RecvRequest groupOfTwo(HostBuffer dst, MrHandle dstMr) throws RdmaException {
        return recv.irecv(2, new long[] {dst.address, dst.address + SIZE}, new long[] {SIZE, SIZE}, new int[] {1, 2},
                new MrHandle[] {dstMr, dstMr});
    }

    private interface Done {
        boolean get() throws RdmaException;
    }

    /** Drives both endpoints until {@code done}, for at most 10 s. */
    private void drive(Done done, String what) throws RdmaException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.get()) {
            assertTrue(System.nanoTime() < deadline, what + " within 10 s");
            a.progress();
            b.progress();
        }
    }

    private static boolean testOk(Request request, long[] sizes) throws RdmaException {
        return request.test(sizes);
    }
}
