package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread's endpoint closes once the thread has ended and nothing of it is in use, as NCCL's proxy
 * thread of a destroyed communicator leaves it: when another thread opens its endpoint, or at the
 * watchdog's next look. What is in use keeps it open: a listen, send or receive communicator, a
 * registered buffer. A thread that lives keeps its endpoint however often its communicators come
 * and go.
 */
@Timeout(120)
class AbandonedEndpointTest {
    private MemProvider provider;
    private Device device;

    @BeforeEach
    void open() throws Exception {
        provider = MemProvider.create();
        device = Device.open(provider, Layouts.mem(1, ""));
    }

    @AfterEach
    void close() throws Exception {
        device.close();
    }

    /** Runs {@code body} on a thread of its own, which has ended when this returns. */
    private static <T> T onThread(Callable<T> body) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                result.set(body.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "proxy");
        thread.start();
        thread.join();
        if (failure.get() instanceof Exception e) {
            throw e;
        }
        if (failure.get() != null) {
            throw (Error) failure.get();
        }
        return result.get();
    }

    /** A connection from {@code endpoint} to itself, closed again, as one communicator's life. */
    private static void connectAndClose(RdmaEndpoint endpoint) throws Exception {
        ListenComm listen = endpoint.listen();
        ConnectedPair pair = ConnectionTest.establish(endpoint, endpoint, listen);
        listen.close();
        pair.send().close();
        pair.recv().close();
    }

    @Test
    void theNextThreadsEndpointClosesTheOneAThreadLeftWithNothingInUse() throws Exception {
        for (int i = 0; i < 20; i++) {
            RdmaEndpoint left = onThread(() -> {
                RdmaEndpoint endpoint = device.endpointForCurrentThread();
                connectAndClose(endpoint);
                return endpoint;
            });
            int round = i;
            onThread(() -> {
                RdmaEndpoint next = device.endpointForCurrentThread();
                // Checked while this thread lives: once it ends, its endpoint is the watchdog's to close
                // too. The watchdog may hold the left endpoint at that moment (a look, or its own close
                // of it), and the new endpoint's close of it then passes it by: a second at most.
                long deadline = System.nanoTime() + TestTime.nanos(1000);
                while (!(left.isClosed() && device.openEndpoints() == 1) && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertTrue(left.isClosed(), "round " + round + ": the ended thread's endpoint is closed");
                assertFalse(next.isClosed());
                assertEquals(1, device.openEndpoints(), "round " + round);
                return next;
            });
        }
    }

    @Test
    void theWatchdogClosesItWhenNoOtherThreadComes() throws Exception {
        RdmaEndpoint left = onThread(() -> {
            RdmaEndpoint endpoint = device.endpointForCurrentThread();
            connectAndClose(endpoint);
            return endpoint;
        });
        long bound = TimeUnit.MILLISECONDS.toNanos(TestTime.ms(5000));
        long start = System.nanoTime();
        // Closed, then taken off the device's list: both within the bound.
        while (!left.isClosed() || device.openEndpoints() > 0) {
            assertTrue(System.nanoTime() - start < bound, "the watchdog closed it");
            Thread.sleep(10);
        }
        assertEquals(0, device.openEndpoints());
        assertFalse(Watchdog.watches(left));
    }

    /**
     * A connect its thread began and no call took within connectionTimeoutMs (an abort that ended
     * NCCL's connect loop) keeps the ended thread's endpoint open only until then: another thread
     * may call connect again with its handle before. Then the endpoint closes, and the connection
     * with it: its send id, mailbox and addresses.
     */
    @Test
    void aConnectGivenUpKeepsItOpenOnlyUntilItsDeadline() throws Exception {
        long timeoutMs = TestTime.ms(1000);
        device.close();
        device = Device.open(provider, Layouts.mem(1, "\"connectionTimeoutMs\": " + timeoutMs));
        RdmaEndpoint listener = device.openEndpoint();
        ListenComm listen = listener.listen();
        long begun = System.nanoTime();
        listener.lock(); // the watchdog's steps of the listener pass it by: no answer during the connect call
        RdmaEndpoint left;
        try {
            left = onThread(() -> {
                RdmaEndpoint endpoint = device.endpointForCurrentThread();
                assertNull(endpoint.connect(listen.handle()), "the listener has not answered yet");
                return endpoint;
            });
        } finally {
            listener.unlock();
        }
        device.closeAbandoned();
        boolean closed = left.isClosed();
        if (System.nanoTime() - begun < TimeUnit.MILLISECONDS.toNanos(timeoutMs)) {
            assertFalse(closed, "a connect before its deadline keeps the endpoint open");
        }
        long bound = TimeUnit.MILLISECONDS.toNanos(timeoutMs + TestTime.ms(5000));
        while (!left.isClosed() || device.openEndpoints() > 1) {
            assertTrue(System.nanoTime() - begun < bound, "the endpoint closed after the connect's deadline");
            Thread.sleep(10);
            device.closeAbandoned();
        }
        assertTrue(System.nanoTime() - begun >= TimeUnit.MILLISECONDS.toNanos(timeoutMs), "not before the deadline");
        assertFalse(listener.isClosed());
    }

    @Test
    void aListenSendOrReceiveCommunicatorOrARegisteredBufferKeepsItOpen() throws Exception {
        RdmaEndpoint listening = onThread(() -> {
            RdmaEndpoint endpoint = device.endpointForCurrentThread();
            endpoint.listen();
            return endpoint;
        });
        ConnectedPair[] pair = new ConnectedPair[1];
        RdmaEndpoint connected = onThread(() -> {
            RdmaEndpoint endpoint = device.endpointForCurrentThread();
            pair[0] = ConnectionTest.establish(endpoint, endpoint, endpoint.listen());
            return endpoint;
        });
        try (HostBuffer buffer = new HostBuffer(4096)) {
            MrHandle[] mr = new MrHandle[1];
            RdmaEndpoint registered = onThread(() -> {
                RdmaEndpoint endpoint = device.endpointForCurrentThread();
                mr[0] = endpoint.registerUserBuffer(buffer.address, buffer.size);
                return endpoint;
            });
            device.closeAbandoned();
            assertFalse(listening.isClosed(), "its listen communicator is open");
            assertFalse(connected.isClosed(), "its communicators are open");
            assertFalse(registered.isClosed(), "a buffer is registered for it");

            for (ListenComm listen : listening.handshake.listens()) {
                listen.close();
            }
            registered.deregisterUserBuffer(mr[0]);
            assertClosesSoon(listening, "its listen communicator closed");
            assertClosesSoon(registered, "its buffer deregistered");
            assertFalse(connected.isClosed());

            pair[0].send().close();
            device.closeAbandoned();
            assertFalse(connected.isClosed(), "its receive communicator is open");
            for (ListenComm listen : connected.handshake.listens()) {
                listen.close();
            }
            pair[0].recv().close();
            assertClosesSoon(connected, "its communicators closed");
            assertEquals(0, device.openEndpoints());
        }
    }

    /**
     * Asks the device to close what its threads left, until {@code endpoint} is closed: the watchdog
     * may hold it at that moment (a look, or its own close of it), and the close then passes it by.
     */
    private void assertClosesSoon(RdmaEndpoint endpoint, String why) throws InterruptedException {
        for (long deadline = System.nanoTime() + TestTime.nanos(1000); !endpoint.isClosed(); Thread.sleep(5)) {
            assertTrue(System.nanoTime() - deadline < 0, why + ": the endpoint closed within a second");
            device.closeAbandoned();
        }
    }

    @Test
    void aThreadThatLivesKeepsItsEndpointAsItsCommunicatorsComeAndGo() throws Exception {
        RdmaEndpoint first = device.endpointForCurrentThread();
        for (int i = 0; i < 20; i++) {
            connectAndClose(device.endpointForCurrentThread());
            onThread(() -> {
                device.closeAbandoned();
                return null;
            });
        }
        assertSame(first, device.endpointForCurrentThread());
        assertFalse(first.isClosed());
    }

    @Test
    void anEndpointOpenedForNoThreadStaysOpen() throws Exception {
        RdmaEndpoint[] endpoint = new RdmaEndpoint[1];
        onThread(() -> endpoint[0] = device.openEndpoint());
        device.closeAbandoned();
        assertFalse(endpoint[0].isClosed(), "opened with openEndpoint: its owner closes it");
    }
}
