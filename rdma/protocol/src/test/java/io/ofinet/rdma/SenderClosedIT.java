package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A sender that sends a few small messages and closes before the receiver posted their receives,
 * over real libfabric with two data rails: each eager send is done at once, so the application may
 * close right after it. The receiver posts the receives only once it has seen the close signal,
 * and must still get every message, whole; a receive beyond them fails. On {@code shm} the signal
 * travels on the control rail and can overtake the messages on the data rails; on {@code tcp} it
 * follows them on every data rail, and they wait, held, for their receives.
 */
@Timeout(120)
class SenderClosedIT {
    private static final int MESSAGES = 6;
    private static final int ROUNDS = 20;
    private static final int SLOT = 2048;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void messagesSentBeforeTheCloseReachReceivesPostedAfterIt(String provider, String domain) throws Exception {
        try (HostBuffer src = new HostBuffer((long) MESSAGES * SLOT).pattern(9);
                HostBuffer dst = new HostBuffer((long) MESSAGES * SLOT);
                Device device = Device.open(new OfiProvider(), Layouts.device(provider, new String[] {domain, domain},
                        "\"peerTimeoutMs\": 5000"))) {
            RdmaEndpoint sender = device.openEndpoint();
            RdmaEndpoint receiver = device.openEndpoint();
            ListenComm listen = receiver.listen();
            MrHandle srcMr = sender.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = receiver.registerUserBuffer(dst.address, dst.size);
            long[] sizes = new long[1];
            for (int round = 0; round < ROUNDS; round++) {
                ConnectedPair pair = ConnectionTest.establish(sender, receiver, listen);
                SendComm send = pair.send();
                RecvComm recv = pair.recv();
                for (int i = 0; i < MESSAGES; i++) {
                    SendRequest s = send.isend(src.address + (long) i * SLOT, size(round, i), 1, srcMr);
                    assertTrue(s != null && s.test(null), "eager send " + i + " is done at once");
                }
                send.close();
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!recv.senderSaidClosed()) {
                    assertTrue(System.nanoTime() < deadline, "the close signal did not arrive");
                    receiver.progress();
                }
                dst.fill((byte) 0);
                for (int i = 0; i < MESSAGES; i++) {
                    RecvRequest r = recv.irecv(1, new long[] {dst.address + (long) i * SLOT}, new long[] {SLOT},
                            new int[] {1}, new MrHandle[] {dstMr});
                    String what = provider + " round " + round + " message " + i;
                    assertTrue(r != null, what + ": receive posted");
                    while (!r.test(sizes)) {
                        assertTrue(System.nanoTime() < deadline, what + " did not arrive");
                    }
                    int size = size(round, i);
                    assertEquals(size, sizes[0], what);
                    assertArrayEquals(src.bytes((long) i * SLOT, size), dst.bytes((long) i * SLOT, size), what);
                }
                RecvRequest beyond = recv.irecv(1, new long[] {dst.address}, new long[] {SLOT}, new int[] {1},
                        new MrHandle[] {dstMr});
                // It fails once the close is complete: on tcp, when the confirmation on every data rail is in.
                String beyondWhat = provider + " round " + round + ": the receive beyond the messages";
                RdmaException e = assertThrows(RdmaException.class, () -> {
                    while (!beyond.test(null)) {
                        assertTrue(System.nanoTime() < deadline, beyondWhat + " neither failed nor finished");
                    }
                }, beyondWhat + " did not fail");
                assertEquals("irecv: the sender closed the connection", e.getMessage());
                recv.close();
            }
            System.out.println(provider + ": " + ROUNDS + " closes right after " + MESSAGES
                    + " eager sends; every message reached its later receive");
            receiver.deregisterUserBuffer(dstMr);
            sender.deregisterUserBuffer(srcMr);
            listen.close();
            sender.close();
            receiver.close();
        }
    }

    private static int size(int round, int i) {
        return 1 + (round * 131 + i * 977) % (SLOT - 1);
    }
}
