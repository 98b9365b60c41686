package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connect the application stops calling on a thread that lives on (an abort that ended NCCL's
 * connect loop) is closed once no call has taken it for connectionTimeoutMs past its deadline: its
 * send id, mailbox and connection do not stay for the endpoint's life. Its handle is refused for one
 * more connectionTimeoutMs, then begins a connection again. A caller that keeps calling is not
 * affected: it takes the connection, or meets the deadline's own failure.
 */
@Timeout(120)
class ConnectGivenUpTest {
    private final long timeoutMs = TestTime.ms(500);
    private MemProvider provider;
    private Device device;
    private RdmaEndpoint connector;
    private RdmaEndpoint listener;

    @BeforeEach
    void open() throws Exception {
        provider = MemProvider.create();
        device = Device.open(provider, Layouts.mem(1, "\"connectionTimeoutMs\": " + timeoutMs));
        connector = device.openEndpoint();
        listener = device.openEndpoint();
    }

    @AfterEach
    void close() throws Exception {
        device.close();
    }

    private long nanos(long ms) {
        return ms * 1_000_000L;
    }

    /**
     * A connect's first call, which posts the CONNECT, with the listener held: the watchdog's step of
     * it between that post and the call's look at its queues would answer at once, and the call would
     * return the connection (or the refusal) it is to leave untaken.
     */
    private SendComm connectUnanswered(byte[] handle) throws RdmaException {
        listener.lock();
        try {
            return connector.connect(handle);
        } finally {
            listener.unlock();
        }
    }

    /** Steps both endpoints, as their other communicators' calls (or the watchdog) would, until {@code until}. */
    private void stepUntil(long until) throws Exception {
        while (System.nanoTime() - until < 0) {
            connector.progress();
            listener.progress();
            Thread.sleep(1);
        }
    }

    @Test
    void aConnectionNoCallTookIsClosedAndItsReceiverTold() throws Exception {
        ListenComm listen = listener.listen();
        long begun = System.nanoTime();
        assertNull(connectUnanswered(listen.handle()));
        RecvComm recv = null;
        while (recv == null) {
            assertTrue(System.nanoTime() - begun < nanos(timeoutMs), "accepted within the connect's deadline");
            connector.progress();
            recv = listener.accept(listen);
        }
        assertEquals(1, connector.comms.openSends().size(), "the connection the connect made, not taken yet");
        stepUntil(begun + nanos(timeoutMs * 3 / 2));
        assertOpenUntilTwiceTheTimeout(begun);

        stepUntil(begun + nanos(2 * timeoutMs));
        long bound = System.nanoTime() + nanos(TestTime.ms(5000));
        while (!connector.comms.openSends().isEmpty() || !recv.senderSaidClosed()) {
            assertTrue(System.nanoTime() - bound < 0, "closed, and its receiver told, after twice the timeout");
            stepUntil(System.nanoTime() + nanos(5));
        }
        assertEquals(1, connector.statistics().connectsGivenUp());

        RdmaException refused = assertThrows(RdmaException.class, () -> connector.connect(listen.handle()));
        assertEquals(ErrorCategory.INVALID_USAGE, refused.category());
        assertTrue(refused.getMessage().contains("given up"), refused.getMessage());
        recv.close();

        // Once the mark is gone, the handle begins a connection again, which works.
        stepUntil(System.nanoTime() + nanos(timeoutMs + TestTime.ms(50)));
        ConnectedPair pair = ConnectionTest.establish(connector, listener, listen);
        assertNotNull(pair.send());
        pair.send().close();
        pair.recv().close();
        listen.close();
        assertTrue(connector.comms.openSends().isEmpty());
    }

    /** Past its deadline but within twice the timeout since {@code begun}, the connect is still there. */
    private void assertOpenUntilTwiceTheTimeout(long begun) {
        int open = connector.comms.openSends().size(); // read before the clock: a close comes after 2 timeouts
        if (System.nanoTime() - begun <= nanos(2 * timeoutMs)) {
            assertEquals(1, open, "past its deadline, a connect no call took is kept until twice the timeout");
        }
    }

    /** Waits, stepping both endpoints, until the connector holds no send communicator. */
    private void awaitNoSends(long begun) throws Exception {
        stepUntil(begun + nanos(2 * timeoutMs));
        long bound = System.nanoTime() + nanos(TestTime.ms(5000));
        while (!connector.comms.openSends().isEmpty()) {
            assertTrue(System.nanoTime() - bound < 0, "closed after twice the timeout");
            stepUntil(System.nanoTime() + nanos(5));
        }
    }

    @Test
    void aConnectWhoseRefusalNoCallCollectedIsClosedToo() throws Exception {
        ListenComm listen = listener.listen();
        byte[] handle = listen.handle();
        listen.close(); // the listener refuses the CONNECT: no such listen communicator
        long begun = System.nanoTime();
        assertNull(connectUnanswered(handle));
        stepUntil(begun + nanos(timeoutMs * 3 / 2));
        assertOpenUntilTwiceTheTimeout(begun);
        awaitNoSends(begun);
        RdmaException refused = assertThrows(RdmaException.class, () -> connector.connect(handle));
        assertTrue(refused.getMessage().contains("given up"), refused.getMessage());
    }

    @Test
    void aCallerThatKeepsCallingMeetsTheDeadlinesOwnFailure() throws Exception {
        ListenComm listen = listener.listen();
        long begun = System.nanoTime();
        RdmaException failure = null;
        listener.lock(); // the listener never answers: neither these calls nor the watchdog step it
        try {
            while (failure == null) {
                assertTrue(System.nanoTime() - begun < nanos(timeoutMs + TestTime.ms(5000)), "failed after the deadline");
                try {
                    assertNull(connector.connect(listen.handle()));
                    Thread.sleep(1);
                } catch (RdmaException e) {
                    failure = e;
                }
            }
        } finally {
            listener.unlock();
        }
        assertEquals(ErrorCategory.REMOTE, failure.category(), failure.getMessage());
        assertTrue(failure.getMessage().contains("did not answer"), failure.getMessage());
        assertTrue(connector.comms.openSends().isEmpty());
    }

    /** Fifty connects begun and given up leave nothing of them on the endpoint, which goes on connecting. */
    @Test
    void manyGivenUpConnectsLeaveNothing() throws Exception {
        ListenComm listen = listener.listen();
        long begun = System.nanoTime();
        for (int i = 0; i < 50; i++) {
            ListenComm other = listener.listen();
            assertNull(connectUnanswered(other.handle()));
            other.close();
        }
        assertEquals(50, connector.comms.openSends().size());
        awaitNoSends(begun);
        assertEquals(50, connector.statistics().connectsGivenUp());
        ConnectedPair pair = ConnectionTest.establish(connector, listener, listen);
        pair.send().close();
        pair.recv().close();
        listen.close();
        assertTrue(connector.comms.openSends().isEmpty());
    }
}
