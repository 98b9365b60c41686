package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * isend, irecv and iflush post and return, reading no completion queue: the latency of a message
 * starts with its post, and the steps of {@code test} advance what waits. The in-memory provider
 * records the calls made on it, in order.
 */
class PostOrderTest {

    /**
     * Two in-memory devices with an endpoint each, a connection from a to b, and a registered buffer
     * of 4096 bytes on each side; closed in the order the plugin requires.
     */
    private static final class Link implements AutoCloseable {
        final MemProvider provider = MemProvider.create();
        final Device deviceA;
        final Device deviceB;
        final HostBuffer src = new HostBuffer(4096).pattern(5);
        final HostBuffer dst = new HostBuffer(4096);
        final RdmaEndpoint a;
        final RdmaEndpoint b;
        final SendComm send;
        final RecvComm recv;
        final MrHandle srcMr;
        final MrHandle dstMr;

        Link(String layout) throws Exception {
            Device openedA = null;
            Device openedB = null;
            try {
                deviceA = openedA = Device.open(provider, Layouts.mem(1, layout));
                deviceB = openedB = Device.open(provider, Layouts.mem(1, layout));
                a = deviceA.openEndpoint();
                b = deviceB.openEndpoint();
                ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
                send = pair.send();
                recv = pair.recv();
                srcMr = a.registerUserBuffer(src.address, src.size);
                dstMr = b.registerUserBuffer(dst.address, dst.size);
            } catch (Exception | Error e) {
                // Half set up: close what was opened (a device takes its endpoints and registrations
                // with it), then free the buffers no registration holds any longer.
                if (openedB != null) {
                    openedB.close();
                }
                if (openedA != null) {
                    openedA.close();
                }
                dst.close();
                src.close();
                throw e;
            }
        }

        Request irecv(long bytes) throws Exception {
            return recv.irecv(1, new long[] {dst.address}, new long[] {bytes}, new int[] {1}, new MrHandle[] {dstMr});
        }

        @Override
        public void close() throws RdmaException {
            a.deregisterUserBuffer(srcMr);
            b.deregisterUserBuffer(dstMr);
            dst.close();
            src.close();
            deviceB.close();
            deviceA.close();
        }
    }

    @Test
    void irecvIsendAndIflushPostFirst() throws Exception {
        postOrder("\"eagerMaxSize\": 0", "fi_writedata", "fi_writedata");
    }

    /** An eager send: the receive posts nothing (its buffer takes an eager message whole). */
    @Test
    void anEagerSendPostsFirstAndItsReceivePostsNothing() throws Exception {
        postOrder("", null, "fi_senddata");
    }

    /**
     * The {@code test} that sees an eager message arrive posts nothing after reading the queue: the
     * eager buffer goes back at the start of the endpoint's next step, before that step reads.
     */
    @Test
    void theArrivalsTestReturnsBeforeItsBufferIsPostedAgain() throws Exception {
        try (Link link = new Link("")) {
            for (int message = 0; message < 3; message++) {
                Request received = link.irecv(64);
                Request sent = link.send.isend(link.src.address, 64, 1, link.srcMr);
                long deadline = System.nanoTime() + 10_000_000_000L;
                List<String> arrival = List.of();
                boolean done = false;
                while (!done && System.nanoTime() < deadline) {
                    link.provider.startRecordingCalls();
                    done = received.test(null);
                    arrival = link.provider.stopRecordingCalls();
                }
                assertTrue(done, "message " + message + " arrived");
                assertEquals(List.of("fi_cq_read"), arrival.stream().distinct().toList(),
                        "the step that delivered message " + message + " only read");
                link.provider.startRecordingCalls();
                link.b.progress();
                List<String> next = link.provider.stopRecordingCalls();
                assertEquals("fi_recv", next.get(0), "the next step posts the buffer first: " + next);
                boolean sentDone;
                while (!(sentDone = sent.test(null)) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertTrue(sentDone, "message " + message + " sent");
            }
        }
    }

    private static void postOrder(String layout, String irecvFirst, String isendFirst) throws Exception {
        try (Link link = new Link(layout)) {
            MemProvider provider = link.provider;
            provider.startRecordingCalls();
            Request received = link.irecv(4096);
            List<String> irecvCalls = provider.stopRecordingCalls();
            if (irecvFirst != null) {
                assertEquals(irecvFirst, irecvCalls.get(0), "irecv's announcement first: " + irecvCalls);
            } else {
                assertEquals(List.of(), irecvCalls, "irecv posts nothing");
            }
            assertFalse(irecvCalls.contains("fi_cq_read"), "irecv reads no queue: " + irecvCalls);

            // The sender learns of the receive when it reads its queues (the provider delivers then).
            for (int i = 0; i < 20; i++) {
                link.a.progress();
            }
            provider.startRecordingCalls();
            Request sent = link.send.isend(link.src.address, 4096, 1, link.srcMr);
            List<String> isendCalls = provider.stopRecordingCalls();
            assertEquals(isendFirst, isendCalls.get(0), "isend's write first: " + isendCalls);
            assertFalse(isendCalls.contains("fi_cq_read"), "isend reads no queue: " + isendCalls);

            long deadline = System.nanoTime() + 10_000_000_000L;
            boolean sendDone = false;
            boolean recvDone = false;
            while (!(sendDone && recvDone) && System.nanoTime() < deadline) {
                sendDone = sendDone || sent.test(null);
                recvDone = recvDone || received.test(null);
            }
            assertTrue(sendDone && recvDone, "the message moved");

            provider.startRecordingCalls();
            Request flushed = link.recv.iflush(1, new long[] {link.dst.address}, new long[] {4096},
                    new MrHandle[] {link.dstMr});
            List<String> iflushCalls = provider.stopRecordingCalls();
            assertEquals("fi_read", iflushCalls.get(0), "iflush's read first: " + iflushCalls);
            assertFalse(iflushCalls.contains("fi_cq_read"), "iflush reads no queue: " + iflushCalls);
            boolean flushDone;
            while (!(flushDone = flushed.test(null)) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(flushDone, "the flush completed");
        }
    }
}
