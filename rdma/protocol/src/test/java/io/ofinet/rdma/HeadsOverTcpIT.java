package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Heads over real {@code tcp;ofi_rxm} on loopback, where they are on by default when writes are
 * announced by messages (docs/PROTOCOL.md, "Heads"; with one data rail the default is tagged
 * messages, which take no heads, so the layout asks for writeNotice message): two communicators
 * share a pair of endpoints and send large messages before their receives are posted, so that each
 * sends its head; the messages arrive whole, a head too large for its receive fails that send and
 * receive only, and its communicator and the other go on (with sends below {@code
 * eagerHeadMinSize}, which send none).
 */
@Timeout(120)
class HeadsOverTcpIT extends TwoHostFixture {
    private static final int CANARY = 64;
    /** Above eagerHeadMinSize (512 KiB by default) in every round. */
    private static final int MESSAGE = 600_000;

    @Test
    void largeSendsBeforeTheirReceivesSendHeadsAndArriveWhole() throws Exception {
        try (HostBuffer src = new HostBuffer(2 * MESSAGE).pattern(5);
                HostBuffer dst = new HostBuffer(2 * MESSAGE + CANARY);
                Device device = Device.open(new OfiProvider(),
                        Layouts.device("tcp;ofi_rxm", new String[] {"lo"}, "\"writeNotice\": \"message\""))) {
            a = device.openEndpoint();
            b = device.openEndpoint();
            ListenComm listen = b.listen();
            ConnectedPair first = ConnectionTest.establish(a, b, listen);
            ConnectedPair second = ConnectionTest.establish(a, b, b.listen());
            SendComm[] sends = {first.send(), second.send()};
            RecvComm[] recvs = {first.recv(), second.recv()};
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            for (int round = 0; round < 40; round++) {
                dst.fill((byte) 0x5A);
                long headsBefore = a.pools.counts.headsSent();
                int size = MESSAGE - round * 997;
                SendRequest[] s = new SendRequest[2];
                RecvRequest[] r = new RecvRequest[2];
                for (int c = 0; c < 2; c++) {
                    s[c] = sends[c].isend(src.address + c * MESSAGE, size, round, srcMr);
                }
                for (int c = 0; c < 2; c++) {
                    r[c] = recvs[c].irecv(1, new long[] {dst.address + c * MESSAGE}, new long[] {MESSAGE},
                            new int[] {round}, new MrHandle[] {dstMr});
                }
                for (int c = 0; c < 2; c++) {
                    long[] got = new long[1];
                    await(s[c], null);
                    await(r[c], got);
                    assertEquals(size, got[0], "round " + round + ", communicator " + c);
                    assertArrayEquals(src.bytes(c * MESSAGE, size), dst.bytes(c * MESSAGE, size),
                            "round " + round + ", communicator " + c);
                    if (c == 1 || size < MESSAGE) { // else the other communicator's buffer follows
                        assertEquals(0x5A, dst.get(c * MESSAGE + size), "nothing past the message");
                    }
                }
                assertEquals(2, a.pools.counts.headsSent() - headsBefore, "heads of round " + round);
            }
            // A head too large for its receive: that send and receive fail, nothing is written, and
            // both communicators go on.
            dst.fill((byte) 0x5A);
            RecvRequest small = recvs[0].irecv(1, new long[] {dst.address}, new long[] {50_000}, new int[] {1},
                    new MrHandle[] {dstMr});
            SendRequest large = sends[0].isend(src.address, MESSAGE, 1, srcMr);
            RdmaException sent = assertThrows(RdmaException.class, () -> await(large, null));
            assertEquals(ErrorCategory.INVALID_USAGE, sent.category(), sent.getMessage());
            RdmaException received = assertThrows(RdmaException.class, () -> await(small, null));
            assertEquals(ErrorCategory.INVALID_USAGE, received.category(), received.getMessage());
            for (int i = 0; i < 50_000 + CANARY; i++) {
                assertEquals(0x5A, dst.get(i), "byte " + i + " was written");
            }
            long headsBefore = a.pools.counts.headsSent();
            for (int c = 0; c < 2; c++) {
                SendRequest s = sends[c].isend(src.address, 300_000, 2, srcMr);
                RecvRequest r = recvs[c].irecv(1, new long[] {dst.address + c * MESSAGE}, new long[] {MESSAGE},
                        new int[] {2}, new MrHandle[] {dstMr});
                await(s, null);
                await(r, null);
                assertArrayEquals(src.bytes(0, 300_000), dst.bytes(c * MESSAGE, 300_000), "communicator " + c);
            }
            assertEquals(headsBefore, a.pools.counts.headsSent(), "sends below eagerHeadMinSize send no head");
            assertTrue(a.pools.counts.headsSent() >= 80, "heads sent: " + a.pools.counts.headsSent());
            srcMr.close();
            dstMr.close();
            for (int c = 0; c < 2; c++) {
                sends[c].close();
                recvs[c].close();
            }
        }
    }
}
