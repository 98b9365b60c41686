package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * isend, irecv and iflush post before they read any completion queue: the latency of a message
 * starts with its post, not with a progress step. The in-memory provider records the calls made
 * on it, in order.
 */
class PostOrderTest {

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
        MemProvider provider = MemProvider.create();
        try (Device deviceA = Device.open(provider, Layouts.mem(1, ""));
                Device deviceB = Device.open(provider, Layouts.mem(1, ""));
                HostBuffer src = new HostBuffer(64).pattern(5);
                HostBuffer dst = new HostBuffer(64)) {
            RdmaEndpoint a = deviceA.openEndpoint();
            RdmaEndpoint b = deviceB.openEndpoint();
            Object[] pair = ConnectionTest.establish(a, b, b.listen());
            SendComm send = (SendComm) pair[0];
            RecvComm recv = (RecvComm) pair[1];
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            for (int message = 0; message < 3; message++) {
                Request received = recv.irecv(1, new long[] {dst.address}, new long[] {64}, new int[] {1},
                        new MrHandle[] {dstMr});
                Request sent = send.isend(src.address, 64, 1, srcMr);
                long deadline = System.nanoTime() + 10_000_000_000L;
                List<String> arrival = List.of();
                boolean done = false;
                while (!done && System.nanoTime() < deadline) {
                    provider.startRecordingCalls();
                    done = received.test(null);
                    arrival = provider.stopRecordingCalls();
                }
                assertTrue(done, "message " + message + " arrived");
                assertEquals(List.of("fi_cq_read"), arrival.stream().distinct().toList(),
                        "the step that delivered message " + message + " only read");
                provider.startRecordingCalls();
                b.progress();
                List<String> next = provider.stopRecordingCalls();
                assertEquals("fi_recv", next.get(0), "the next step posts the buffer first: " + next);
                while (!sent.test(null) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            }
            a.deregisterUserBuffer(srcMr);
            b.deregisterUserBuffer(dstMr);
        }
    }

    private static void postOrder(String layout, String irecvFirst, String isendFirst) throws Exception {
        MemProvider provider = MemProvider.create();
        try (Device deviceA = Device.open(provider, Layouts.mem(1, layout));
                Device deviceB = Device.open(provider, Layouts.mem(1, layout));
                HostBuffer src = new HostBuffer(4096).pattern(5);
                HostBuffer dst = new HostBuffer(4096)) {
            RdmaEndpoint a = deviceA.openEndpoint();
            RdmaEndpoint b = deviceB.openEndpoint();
            Object[] pair = ConnectionTest.establish(a, b, b.listen());
            SendComm send = (SendComm) pair[0];
            RecvComm recv = (RecvComm) pair[1];
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);

            provider.startRecordingCalls();
            Request received = recv.irecv(1, new long[] {dst.address}, new long[] {4096}, new int[] {1},
                    new MrHandle[] {dstMr});
            List<String> irecvCalls = provider.stopRecordingCalls();
            if (irecvFirst != null) {
                assertEquals(irecvFirst, irecvCalls.get(0), "irecv's control message first: " + irecvCalls);
            } else {
                assertEquals(List.of("fi_cq_read"), irecvCalls.stream().distinct().toList(), "irecv posts nothing");
            }

            // The sender learns of the receive when it reads its queues (the provider delivers then).
            for (int i = 0; i < 20; i++) {
                a.progress();
            }
            provider.startRecordingCalls();
            Request sent = send.isend(src.address, 4096, 1, srcMr);
            List<String> isendCalls = provider.stopRecordingCalls();
            assertEquals(isendFirst, isendCalls.get(0), "isend's write first: " + isendCalls);

            long deadline = System.nanoTime() + 10_000_000_000L;
            boolean sendDone = false;
            boolean recvDone = false;
            while (!(sendDone && recvDone) && System.nanoTime() < deadline) {
                sendDone = sendDone || sent.test(null);
                recvDone = recvDone || received.test(null);
            }
            assertTrue(sendDone && recvDone, "the message moved");

            provider.startRecordingCalls();
            Request flushed = recv.iflush(1, new long[] {dst.address}, new long[] {4096}, new MrHandle[] {dstMr});
            List<String> iflushCalls = provider.stopRecordingCalls();
            assertEquals("fi_read", iflushCalls.get(0), "iflush's read first: " + iflushCalls);
            while (!flushed.test(null) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            a.deregisterUserBuffer(srcMr);
            b.deregisterUserBuffer(dstMr);
        }
    }
}
