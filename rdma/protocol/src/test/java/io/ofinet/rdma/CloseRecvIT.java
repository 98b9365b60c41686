package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code closeRecv} with receives outstanding while the sender streams into them, over real
 * libfabric with two data rails: once the close returns, the application may deregister the
 * buffers, so nothing of the sender's may land in them afterwards. The receiver watches its buffer
 * for a while after each close, driving progress; the sender runs on a thread of its own and
 * closes its side when told, as an application would. Every round opens a new pair of
 * communicators between the same two endpoints, which must work after the last round's close.
 */
@Timeout(240)
class CloseRecvIT {
    private static final int MESSAGE = 4 << 20;
    private static final int RECEIVES = 8;
    private static final int ROUNDS = 12;
    private static final long WATCH_NANOS = 300_000_000L;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void nothingLandsInAReceiveBufferOnceCloseRecvReturned(String provider, String domain) throws Exception {
        try (HostBuffer src = new HostBuffer(4L * MESSAGE).pattern(5);
                HostBuffer dst = new HostBuffer((long) RECEIVES * MESSAGE);
                Device device = Device.open(new OfiProvider(), Layouts.device(provider, new String[] {domain, domain},
                        "\"minStripeSize\": 65536"))) {
            RdmaEndpoint sender = device.openEndpoint();
            RdmaEndpoint receiver = device.openEndpoint();
            ListenComm listen = receiver.listen();
            MrHandle srcMr = sender.registerUserBuffer(src.address, src.size);
            for (int round = 0; round < ROUNDS; round++) {
                ConnectedPair pair = ConnectionTest.establish(sender, receiver, listen);
                SendComm send = pair.send();
                RecvComm recv = pair.recv();
                dst.fill((byte) 0);
                MrHandle dstMr = receiver.registerUserBuffer(dst.address, dst.size);
                List<RecvRequest> receives = new ArrayList<>();
                for (int i = 0; i < RECEIVES; i++) {
                    RecvRequest r = recv.irecv(1, new long[] {dst.address + (long) i * MESSAGE}, new long[] {MESSAGE},
                            new int[] {0}, new MrHandle[] {dstMr});
                    assertTrue(r != null, "receive " + i + " posted");
                    receives.add(r);
                }
                AtomicReference<Throwable> senderFailure = new AtomicReference<>();
                Thread streaming = new Thread(() -> stream(send, src, srcMr, senderFailure), "sender");
                streaming.start();
                Await.done(receives.get(0), null, "the first message");
                recv.close();
                byte[] atClose = dst.bytes(0, (int) dst.size);
                long watchEnd = System.nanoTime() + WATCH_NANOS;
                while (System.nanoTime() < watchEnd) {
                    receiver.progress();
                }
                byte[] later = dst.bytes(0, (int) dst.size);
                int firstChange = Arrays.mismatch(atClose, later);
                assertEquals(-1, firstChange, provider + " round " + round + ": byte " + firstChange
                        + " of the receive buffers changed after closeRecv returned");
                receiver.deregisterUserBuffer(dstMr);
                streaming.join(60_000);
                assertTrue(!streaming.isAlive(), "the sender did not finish");
                if (senderFailure.get() != null) {
                    throw new AssertionError("sender", senderFailure.get());
                }
            }
            System.out.println(provider + ": " + ROUNDS + " closes with writes in flight; nothing landed after any");
            sender.deregisterUserBuffer(srcMr);
            listen.close();
            sender.close();
            receiver.close();
        }
    }

    /** Keeps up to four sends in flight until the receiver's close fails them, then closes. */
    private static void stream(SendComm send, HostBuffer src, MrHandle mr, AtomicReference<Throwable> failure) {
        try {
            SendRequest[] inFlight = new SendRequest[4];
            boolean receiverClosed = false;
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!receiverClosed && System.nanoTime() < deadline) {
                for (int k = 0; k < inFlight.length && !receiverClosed; k++) {
                    try {
                        if (inFlight[k] == null) {
                            inFlight[k] = send.isend(src.address + (long) k * MESSAGE, MESSAGE, 0, mr);
                        } else if (inFlight[k].test(null)) {
                            inFlight[k] = null;
                        }
                    } catch (RdmaException e) {
                        receiverClosed = true;
                    }
                }
            }
            send.close();
        } catch (Throwable t) {
            failure.set(t);
        }
    }
}
