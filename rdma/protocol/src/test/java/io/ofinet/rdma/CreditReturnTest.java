package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.recv.EagerInbox;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.Signal;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Signals to the sender that fell due while none of the receiver's operations was free go out once
 * one is. Credits, returned in batches, go back at the receiver's next look at its communicator's
 * stalls: else a sender that had spent them all waited for good, and its receiver, holding too few
 * messages to announce its receives, with it. A refusal goes out before them: else the send it
 * refuses waited for good. Either side's close signal waits for an operation within the close's
 * time: else its peer learnt of the close only when it gave it up as silent.
 */
@Timeout(60)
class CreditReturnTest extends PeerFixture {
    private HostBuffer src;
    private HostBuffer dst;
    private MrHandle srcMr;
    private MrHandle dstMr;

    @Test
    void creditsDueWhileNoOperationWasFreeGoBackOnceOneIs() throws Exception {
        open("\"peerTimeoutMs\": 2000");
        List<RmaOp> taken = takeAllOps(b);
        // Every credit used while the receiver has no operation free: the returns fall due, and wait.
        for (int i = 0; i < 64; i++) {
            RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {100}, new int[] {5},
                    new MrHandle[] {dstMr});
            SendRequest s = send.isend(src.address + i, 10, 5, srcMr);
            assertNotNull(r);
            assertNotNull(s);
            complete(r, s);
        }
        giveBack(b, taken);
        smallTransfer();
    }

    /**
     * A request to send into a receive of small buffers, which sends no announcement, arrives while
     * the receiver has no operation free: the receive fails at once, and the sender's send, waiting
     * for an answer, fails once an operation is.
     */
    @Test
    void aRefusalDueWhileNoOperationWasFreeGoesOutOnceOneIs() throws Exception {
        open("\"peerTimeoutMs\": 5000, \"rtsDelayUs\": 0");
        List<RmaOp> taken = takeAllOps(b);
        RecvRequest small = smallReceive();
        SendRequest large = send.isend(src.address, 64 * 1024, 5, srcMr);
        RdmaException received = assertThrows(RdmaException.class, () -> complete(small, large));
        assertTrue(received.getMessage().contains("did not fit"), received.getMessage());
        for (int i = 0; i < 100; i++) {
            a.progress();
            b.progress();
            assertFalse(large.test(null), "the send is answered only once the refusal goes out");
        }
        giveBack(b, taken);
        RdmaException sent = assertThrows(RdmaException.class, () -> complete(large, large));
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category(), sent.getMessage());
        smallTransfer();
    }

    /**
     * Credit signals the provider fails, as rxm fails what a connection reset between two live peers
     * carried ({@code FI_ECANCELED}), are owed again and go at the receiver's next look: each lost
     * batch shrank the sender's window for good, and two left it waiting for ever. One the provider
     * reports failed after it reached the sender counts there once: sent again as a batch of credits,
     * it was taken for more credits than were in use, and the receiver condemned.
     */
    @ParameterizedTest
    @ValueSource(strings = {"completion", "post", "after delivery"})
    void creditsWhoseSignalsFailedAreReturnedAgain(String failure) throws Exception {
        open("\"peerTimeoutMs\": 60000");
        if (failure.equals("after delivery")) {
            provider.faults().failNextCompletionsAfterDelivery(b.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, 2,
                    FiErrno.FI_ECANCELED);
        } else {
            failNextSignals(2, failure.equals("post"));
        }
        for (int i = 0; i < 4 * Limits.CREDITS; i++) {
            RecvRequest r = smallReceive();
            SendRequest s = send.isend(src.address + i, 10, 5, srcMr);
            assertNotNull(r);
            assertNotNull(s);
            complete(r, s);
        }
    }

    /**
     * A refusal whose signal the provider fails goes again: the send it refuses waited for an answer
     * until the receiver fell silent.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRefusalWhoseSignalFailedGoesAgain(boolean atPost) throws Exception {
        open("\"peerTimeoutMs\": 60000, \"rtsDelayUs\": 0");
        failNextSignals(1, atPost);
        RecvRequest small = smallReceive();
        SendRequest large = send.isend(src.address, 64 * 1024, 5, srcMr);
        RdmaException received = assertThrows(RdmaException.class, () -> complete(small, large));
        assertTrue(received.getMessage().contains("did not fit"), received.getMessage());
        RdmaException sent = assertThrows(RdmaException.class, () -> complete(large, large));
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category(), sent.getMessage());
        smallTransfer();
    }

    /**
     * A credit signal carries the count of all credits the receiver returned, modulo 2^10: one that
     * repeats the count the sender has, or an older one, changes nothing; one that returns more than
     * the sender has in use breaks the protocol, and the sender stops.
     */
    @Test
    void aCreditCountSeenAlreadyChangesNothingAndOneBeyondTheCreditsInUseCondemns() throws Exception {
        open("\"peerTimeoutMs\": 60000");
        for (int i = 0; i < EagerInbox.CREDIT_BATCH; i++) {
            smallTransfer(); // the batch goes back: the sender has seen a count of 32
        }
        smallTransfer(); // one credit in use
        for (int count : new int[] {EagerInbox.CREDIT_BATCH, 0, 1000}) {
            forgeCreditCount(count);
            spin();
        }
        smallTransfer();
        forgeCreditCount(EagerInbox.CREDIT_BATCH + 3); // three returned, with two in use
        spin();
        RdmaException stopped = assertThrows(RdmaException.class, () -> send.isend(src.address, 10, 5, srcMr));
        assertTrue(stopped.getMessage().contains("returned 3 eager credits with 2 in use"), stopped.getMessage());
    }

    /** Drives both endpoints 20 times. */
    private void spin() throws Exception {
        for (int i = 0; i < 20; i++) {
            b.progress();
            a.progress();
        }
    }

    /** Sends the sender a credit signal with {@code count}, from the receiver's connection, as the receiver would. */
    private void forgeCreditCount(int count) throws Exception {
        b.lock();
        try {
            recv.connection().sendImmediate(b.pools.ops.acquire(), "a forged credit count", Immediate.signal(
                    Signal.CREDITS_TO_SENDER, recv.connection().peerCommId(), count), RmaOp.NO_OWNER);
        } finally {
            b.unlock();
        }
    }

    /**
     * The receiver's next {@code count} signals fail: at their post ({@code atPost}, the provider's
     * call returns an error), or at their completion (FI_ECANCELED, as for a connection reset).
     */
    private void failNextSignals(int count, boolean atPost) {
        if (atPost) {
            provider.faults().failNextPosts(b.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, count, FiErrno.FI_EIO);
        } else {
            provider.faults().failNextCompletions(b.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, count,
                    FiErrno.FI_ECANCELED);
        }
    }

    /**
     * A receive communicator closes with a receive outstanding while none of its operations is free:
     * the close waits for one to tell the sender, whose queued send then fails for the close, not
     * for the receiver's silence after peerTimeoutMs.
     */
    @Test
    void theCloseSignalWaitsForAnOperation() throws Exception {
        open("\"peerTimeoutMs\": 5000");
        assertNotNull(smallReceive());
        SendRequest waiting = send.isend(src.address, 64 * 1024, 6, srcMr);
        List<RmaOp> taken = takeAllOps(b);
        Thread closer = new Thread(recv::close, "closeRecv");
        closer.start();
        long deadline = System.nanoTime() + TestTime.nanos(10_000);
        while (!waitingInProgress(closer)) {
            assertTrue(System.nanoTime() < deadline, "the close waits for an operation within 10 s");
            Thread.sleep(1);
        }
        assertFalse(waiting.test(null), "the sender not told yet");
        giveBack(b, taken);
        long start = System.nanoTime();
        RdmaException failure = assertThrows(RdmaException.class, () -> {
            while (!waiting.test(null)) {
                assertTrue(System.nanoTime() - start < TestTime.nanos(10_000), "the send failed within 10 s");
            }
        });
        closer.join(TestTime.ms(10_000));
        assertFalse(closer.isAlive(), "closeRecv returned");
        assertTrue(failure.getMessage().contains("receiver closed"), failure.getMessage());
    }

    /**
     * A send communicator closes while none of its endpoint's operations is free (all in flight for
     * other communicators): the close waits for one to tell the receiver, whose receive then fails
     * for the close, not for the sender's silence after peerTimeoutMs.
     */
    @Test
    void theSendersCloseSignalWaitsForAnOperation() throws Exception {
        open("\"peerTimeoutMs\": 60000");
        RecvRequest unserved = smallReceive();
        List<RmaOp> taken = takeAllOps(a);
        AtomicReference<RdmaException> closeFailed = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            try {
                send.close();
            } catch (RdmaException e) {
                closeFailed.set(e);
            }
        }, "closeSend");
        closer.start();
        long deadline = System.nanoTime() + TestTime.nanos(10_000);
        // With nothing in flight, the close steps progress only while it waits for an operation.
        while (!waitingIn(closer, SendClosing.class.getName(), "progressed")) {
            assertTrue(System.nanoTime() < deadline, "the close waits for an operation within 10 s");
            Thread.sleep(1);
        }
        assertFalse(send.isClosed(), "the close waits");
        giveBack(a, taken);
        closer.join(TestTime.ms(10_000));
        assertFalse(closer.isAlive(), "closeSend returned");
        assertNull(closeFailed.get(), "closeSend threw");
        RdmaException failure = assertThrows(RdmaException.class, () -> {
            long start = System.nanoTime();
            while (!unserved.test(null)) {
                assertTrue(System.nanoTime() - start < TestTime.nanos(10_000), "the receive failed within 10 s");
                b.progress();
            }
        });
        assertTrue(failure.getMessage().endsWith("the sender closed the connection before sending the message"),
                failure.getMessage());
    }

    /** Whether {@code closer} is in the close's wait, which drives progress until an operation is free. */
    private static boolean waitingInProgress(Thread closer) {
        return waitingIn(closer, CommClosing.class.getName(), "progressWhile");
    }

    /** Whether {@code thread} is in method {@code method} of class {@code className}. */
    private static boolean waitingIn(Thread thread, String className, String method) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(className) && frame.getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }

    /** Connects a pair with {@code layoutMembers}, and registers a 64 KiB source and a 4 KiB destination. */
    private void open(String layoutMembers) throws Exception {
        members = layoutMembers;
        connectPair();
        src = buffer(64 * 1024);
        dst = buffer();
        srcMr = registered(a, src);
        dstMr = registered(b, dst);
    }

    /** A receive of 100 bytes, tag 5, into {@code dst}: small enough to send no announcement. */
    private RecvRequest smallReceive() throws RdmaException {
        return recv.irecv(1, new long[] {dst.address}, new long[] {100}, new int[] {5}, new MrHandle[] {dstMr});
    }

    /** Ten bytes sent into a {@link #smallReceive}, both done. */
    private void smallTransfer() throws Exception {
        RecvRequest r = smallReceive();
        SendRequest s = send.isend(src.address, 10, 5, srcMr);
        complete(r, s);
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
