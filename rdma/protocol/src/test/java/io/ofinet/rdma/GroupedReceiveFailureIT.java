package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A grouped receive over real {@code tcp;ofi_rxm} on loopback whose first buffer is refused (its
 * send does not fit) is reported failed only once the sender sends no more into its second buffer:
 * the send into that buffer lands there first, written (writeNotice message) or as one tagged
 * message (the default with one data rail), and the application told of the failure may reuse both
 * buffers. Before, the failure came at once: a written buffer was written after it, and a tagged
 * one's message, its receive cancelled, waited in the provider for a later receive whose number
 * and index matched. Rounds repeat it on one connection, past the 1,024 sequence numbers, and
 * every later receive gets its own sends' bytes.
 */
@Timeout(120)
class GroupedReceiveFailureIT extends TwoHostFixture {
    private static final int SIZE = 256 * 1024;
    /** Each round takes 4 sequence numbers: past the 1,024 there are before the first recurs. */
    private static final int ROUNDS = 300;

    @ParameterizedTest
    @ValueSource(strings = {"message", "tagged"})
    void aFailedGroupedReceiveIsToldAfterItsOtherBufferTookItsSend(String writeNotice) throws Exception {
        try (HostBuffer src = new HostBuffer(3L * SIZE);
                HostBuffer dst = new HostBuffer(2L * SIZE);
                Device device = Device.open(new OfiProvider(), Layouts.device("tcp;ofi_rxm", new String[] {"lo"},
                        "\"writeNotice\": \"" + writeNotice + "\""))) {
            a = device.openEndpoint();
            b = device.openEndpoint();
            ConnectedPair pair = ConnectionTest.establish(a, b, b.listen());
            MrHandle srcMr = a.registerUserBuffer(src.address, src.size);
            MrHandle dstMr = b.registerUserBuffer(dst.address, dst.size);
            long[] addresses = {dst.address, dst.address + SIZE};
            for (int round = 0; round < ROUNDS; round++) {
                src.pattern(round);
                dst.fill((byte) 0x5A);
                RecvRequest group = pair.recv().irecv(2, addresses, new long[] {SIZE, SIZE}, new int[] {1, 2},
                        new MrHandle[] {dstMr, dstMr});
                SendRequest tooLarge = pair.send().isend(src.address, 2L * SIZE, 1, srcMr);
                RdmaException refused = assertThrows(RdmaException.class, () -> await(tooLarge, null));
                assertEquals(ErrorCategory.INVALID_USAGE, refused.category(), refused.getMessage());
                if (round % 100 == 0) {
                    for (int i = 0; i < 100; i++) {
                        a.progress();
                        assertFalse(group.test(null), "round " + round + ": told while buffer 1 awaits its send");
                    }
                }
                SendRequest second = pair.send().isend(src.address + 2L * SIZE, SIZE, 2, srcMr);
                await(second, null);
                RdmaException failed = assertThrows(RdmaException.class, () -> await(group, null));
                assertTrue(failed.getMessage().contains("did not fit"), failed.getMessage());
                assertArrayEquals(src.bytes(2L * SIZE, SIZE), dst.bytes(SIZE, SIZE), "round " + round
                        + ": buffer 1 took its send before the failure was told");
                RecvRequest next = pair.recv().irecv(2, addresses, new long[] {SIZE, SIZE}, new int[] {3, 4},
                        new MrHandle[] {dstMr, dstMr});
                SendRequest third = pair.send().isend(src.address, SIZE, 3, srcMr);
                SendRequest fourth = pair.send().isend(src.address + SIZE, SIZE, 4, srcMr);
                await(third, null);
                await(fourth, null);
                await(next, null);
                assertArrayEquals(src.bytes(0, 2 * SIZE), dst.bytes(0, 2 * SIZE), "round " + round
                        + ": the next receive");
            }
            assertNull(pair.recv().liveness().dead(), "the connection goes on");
            srcMr.close();
            dstMr.close();
            pair.send().close();
            pair.recv().close();
        }
    }
}
