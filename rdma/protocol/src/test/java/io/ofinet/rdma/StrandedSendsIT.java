package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Over real {@code tcp;ofi_rxm} on loopback, a receiver that stops taking data: the sender's
 * large sends fill the sockets, and tcp keeps the rest queued with the application's memory
 * (docs/FABRIC.md, "a stalled peer's operations"). Once the peer is presumed dead and the sending
 * thread has closed its communicator and deregistered its buffer, in either order, its endpoint
 * closes, which alone ends what tcp holds, before the last of those calls returns: the application
 * may then free the memory, and the thread's next call opens a new endpoint, which works. An
 * endpoint the application opened itself stays open until it closes it.
 */
@Timeout(120)
class StrandedSendsIT {
    private static final long SIZE = 4L << 20;
    private static final int SENDS = 8;
    private RdmaEndpoint receiver;
    private ListenComm listen;
    private RdmaEndpoint sender;
    private ConnectedPair pair;
    private MrHandle srcMr;
    private MrHandle dstMr;

    @ParameterizedTest(name = "deregistered first: {0}")
    @ValueSource(booleans = {false, true})
    void aThreadsEndpointClosesAtItsLastUseWhileTcpHoldsSendsToAPeerPresumedDead(boolean deregisterFirst)
            throws Exception {
        try (HostBuffer dst = new HostBuffer(SIZE * SENDS);
                Device device = Device.open(new OfiProvider(), Layouts.device("tcp;ofi_rxm", new String[] {"lo"},
                        "\"peerTimeoutMs\": 1000"))) {
            HostBuffer src = new HostBuffer(SIZE * SENDS).fill((byte) 7);
            connect(device, device.endpointForCurrentThread(), src, dst);
            receiver.lock();
            try {
                int held = stallSends(src, dst);
                if (deregisterFirst) {
                    sender.deregisterUserBuffer(srcMr); // NCCL's order
                    pair.send().close();
                } else {
                    pair.send().close();
                    assertFalse(sender.isClosed(), "the endpoint closed while a buffer was still registered on it");
                    sender.deregisterUserBuffer(srcMr);
                }
                assertTrue(sender.isClosed(), "the endpoint stayed open with " + held
                        + " operations stranded in tcp to a peer presumed dead");
                src.close(); // nothing holds its address any more
            } finally {
                receiver.unlock();
            }
            RdmaEndpoint next = device.endpointForCurrentThread();
            assertNotSame(sender, next);
            ConnectedPair again = ConnectionTest.establish(next, receiver, listen);
            try (HostBuffer small = new HostBuffer(4096).fill((byte) 9);
                    HostBuffer landing = new HostBuffer(4096)) {
                // Apart from dst, where the stopped transfers' bytes the sockets held may still land.
                MrHandle smallMr = next.registerUserBuffer(small.address, small.size);
                MrHandle landingMr = receiver.registerUserBuffer(landing.address, landing.size);
                transfer(again.send(), again.recv(), small, smallMr, landing, landingMr, 4096, 2);
                assertEquals(9, landing.get(4095));
                again.send().close();
                next.deregisterUserBuffer(smallMr);
                receiver.deregisterUserBuffer(landingMr);
            }
            again.recv().close();
            pair.recv().close();
            listen.close();
            receiver.deregisterUserBuffer(dstMr);
            receiver.close();
        }
    }

    @Test
    void anEndpointTheApplicationOpenedStaysOpenUntilItClosesIt() throws Exception {
        try (HostBuffer src = new HostBuffer(SIZE * SENDS).fill((byte) 7);
                HostBuffer dst = new HostBuffer(SIZE * SENDS);
                Device device = Device.open(new OfiProvider(), Layouts.device("tcp;ofi_rxm", new String[] {"lo"},
                        "\"peerTimeoutMs\": 1000"))) {
            connect(device, device.openEndpoint(), src, dst);
            receiver.lock();
            try {
                stallSends(src, dst);
                pair.send().close();
                sender.deregisterUserBuffer(srcMr);
                assertFalse(sender.isClosed(), "an endpoint the application opened was closed under it");
                sender.close();
                assertTrue(sender.isClosed());
            } finally {
                receiver.unlock();
            }
            pair.recv().close();
            listen.close();
            receiver.deregisterUserBuffer(dstMr);
            receiver.close();
        }
    }

    /** Connects {@code sending} to a receiver of its own on {@code device}, each with its buffer registered. */
    private void connect(Device device, RdmaEndpoint sending, HostBuffer src, HostBuffer dst) throws Exception {
        receiver = device.openEndpoint();
        listen = receiver.listen();
        sender = sending;
        pair = ConnectionTest.establish(sender, receiver, listen);
        srcMr = sender.registerUserBuffer(src.address, src.size);
        dstMr = receiver.registerUserBuffer(dst.address, dst.size);
    }

    /**
     * With the receiver let go, moves one message over the pair (rxm's connection carries data then)
     * and posts {@value #SENDS} receives of 4 MiB; then, the receiver held again as the caller held
     * it (neither this thread nor the watchdog steps it), posts as many sends and tests them until
     * each has failed or finished, the peer presumed dead after peerTimeoutMs of silence. Returns
     * how many operations tcp still holds to the peer's data address, or ofinet holds for it.
     */
    private int stallSends(HostBuffer src, HostBuffer dst) throws Exception {
        receiver.unlock();
        try {
            transfer(pair.send(), pair.recv(), src, srcMr, dst, dstMr, (int) SIZE, 3); // the pair moves data
            for (int i = 0; i < SENDS; i++) {
                assertNotNull(pair.recv().irecv(1, new long[] {dst.address + i * SIZE}, new long[] {SIZE},
                        new int[] {1}, new MrHandle[] {dstMr}), "receive " + i);
            }
            for (int i = 0; i < 100; i++) {
                receiver.progress(); // its announcements go out
            }
        } finally {
            receiver.lock();
        }
        SendRequest[] sends = new SendRequest[SENDS];
        for (int i = 0; i < SENDS; i++) {
            sends[i] = pair.send().isend(src.address + i * SIZE, (int) SIZE, 1, srcMr);
            assertNotNull(sends[i], "send " + i);
        }
        assertTrue(awaitEnd(sends) > 0, "no send failed");
        int held;
        sender.lock(); // against a watchdog step
        try {
            held = pair.send().connection().dataQueue(0).inFlight() + pair.send().connection().dataQueue(0).pending();
        } finally {
            sender.unlock();
        }
        assertTrue(held > 0, "tcp holds none of the sends: the sockets took them all");
        return held;
    }

    /** Moves {@code size} bytes from {@code src} to {@code dst} with {@code tag}, both sides tested by this thread. */
    private static void transfer(SendComm send, RecvComm recv, HostBuffer src, MrHandle srcMr, HostBuffer dst,
            MrHandle dstMr, int size, int tag) throws RdmaException {
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {dst.size}, new int[] {tag},
                new MrHandle[] {dstMr});
        SendRequest s = send.isend(src.address, size, tag, srcMr);
        long[] got = new long[1];
        long deadline = System.nanoTime() + 30_000_000_000L;
        boolean sent = false;
        boolean received = false;
        while (!sent || !received) {
            assertTrue(System.nanoTime() - deadline < 0, "a message of " + size + " bytes did not arrive");
            sent = sent || s.test(null);
            received = received || r.test(got);
        }
        assertEquals(size, got[0]);
    }

    /** Tests every send until each has ended; returns how many failed. */
    private static int awaitEnd(SendRequest[] sends) throws RdmaException {
        boolean[] ended = new boolean[sends.length];
        int failed = 0;
        int left = sends.length;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (left > 0) {
            assertTrue(System.nanoTime() - deadline < 0, left + " sends neither failed nor finished");
            for (int i = 0; i < sends.length; i++) {
                if (ended[i]) {
                    continue;
                }
                try {
                    ended[i] = sends[i].test(null);
                } catch (RdmaException e) {
                    ended[i] = true;
                    failed++;
                }
                left -= ended[i] ? 1 : 0;
            }
        }
        return failed;
    }
}
