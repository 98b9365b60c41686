package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Signal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ways the matching rule (the k-th send with a tag fills the k-th buffer with that tag) could
 * hang a connection, each shown not to: a large send whose receive is not posted does not hold
 * back the sends of the posted one; messages held for later receives do not take the credits the
 * posted one needs; a send whose tag no receive has waits without harming the others, until its
 * communicator closes.
 */
@Timeout(60)
class TagMatchingTest extends EagerFixture {
    /**
     * Head of line: a send of tag 1 whose receive is posted only later (large: it waits for its
     * announcement; small: it goes and is held) is posted first, and the sends that complete the
     * posted receive of tag 0 go past it.
     */
    @ParameterizedTest
    @ValueSource(ints = {64, 200_000})
    void aSendWhoseReceiveIsNotPostedDoesNotHoldBackTheOthers(int firstSize) throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        RecvRequest zero = p.recv().irecv(2, new long[] {s.dst.address, s.dst.address + 1000}, new long[] {1000, 1000},
                new int[] {0, 0}, new MrHandle[] {s.dstMr, s.dstMr});
        SendRequest ahead = p.send().isend(s.src.address + 4000, firstSize, 1, s.srcMr);
        SendRequest first = p.send().isend(s.src.address, 1000, 0, s.srcMr);
        SendRequest second = p.send().isend(s.src.address + 1000, 500, 0, s.srcMr);
        long[] sizes = new long[2];
        await(zero, sizes);
        await(first, null);
        await(second, null);
        assertArrayEquals(new long[] {1000, 500}, sizes);
        assertArrayEquals(s.src.bytes(0, 1500), s.dst.bytes(0, 1500));
        RecvRequest one = p.recv().irecv(1, new long[] {s.dst.address + 4000}, new long[] {firstSize}, new int[] {1},
                new MrHandle[] {s.dstMr});
        long[] size = new long[1];
        await(one, size);
        await(ahead, null);
        assertEquals(firstSize, size[0]);
        assertArrayEquals(s.src.bytes(4000, firstSize), s.dst.bytes(4000, firstSize));
    }

    /**
     * Credits: the sender runs 100 small messages of tag 1 ahead of the one of tag 0 that the only
     * posted receive waits for, more than its credits; the receiver posts the receives of tag 1
     * only once that receive completed. The held messages take every credit, so the send of tag 0
     * must find its receive announced and be written.
     */
    @Test
    void messagesHeldForLaterReceivesDoNotTakeTheCreditsThePostedOneNeeds() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        RecvRequest zero = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {0},
                new MrHandle[] {s.dstMr});
        int ahead = 100;
        List<SendRequest> sends = new ArrayList<>();
        for (int k = 0; k < ahead; k++) {
            SendRequest send;
            while ((send = p.send().isend(s.src.address + 64 + 32 * k, 32, 1, s.srcMr)) == null) {
                spin(1);
            }
            sends.add(send);
        }
        SendRequest last = p.send().isend(s.src.address, 64, 0, s.srcMr);
        assertNotNull(last);
        long[] size = new long[1];
        await(zero, size);
        await(last, null);
        assertEquals(64, size[0]);
        assertArrayEquals(s.src.bytes(0, 64), s.dst.bytes(0, 64));
        for (int k = 0; k < ahead; k++) {
            RecvRequest r;
            while ((r = p.recv().irecv(1, new long[] {s.dst.address + 64 + 32 * k}, new long[] {32}, new int[] {1},
                    new MrHandle[] {s.dstMr})) == null) {
                spin(1);
            }
            await(r, size);
            assertEquals(32, size[0], "receive " + k + " of tag 1");
        }
        for (SendRequest send : sends) {
            await(send, null);
        }
        assertArrayEquals(s.src.bytes(64, 32 * ahead), s.dst.bytes(64, 32 * ahead));
    }

    /**
     * A send whose tag no receive ever has: it is not refused, and it waits (a small one has gone
     * out and is done; a large one stays outstanding) while the traffic of other tags goes on; the
     * large one fails when its communicator closes.
     */
    @Test
    void aSendWhoseTagNoReceiveHasWaitsWithoutHarmingTheOthers() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        SendRequest small = p.send().isend(s.src.address, 64, 9, s.srcMr);
        SendRequest large = p.send().isend(s.src.address, 100_000, 9, s.srcMr);
        for (int k = 0; k < 3; k++) {
            RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {200_000}, new int[] {0},
                    new MrHandle[] {s.dstMr});
            SendRequest send = p.send().isend(s.src.address + 1000 * k, 100_000, 0, s.srcMr);
            await(send, null);
            await(r, null);
            assertArrayEquals(s.src.bytes(1000 * k, 100_000), s.dst.bytes(0, 100_000));
        }
        await(small, null);
        assertFalse(large.test(null), "the large send of tag 9 waits for a receive of tag 9");
        assertTrue(p.recv().heldEagerMessages() >= 1, "the small one waits at the receiver (and the large one's"
                + " request to send, once it went)");
        p.send().close();
        RdmaException e = assertThrows(RdmaException.class, () -> large.test(null));
        assertEquals(ErrorCategory.INVALID_USAGE, e.category());
        assertEquals("the send communicator was closed", e.getMessage());
    }

    /**
     * The sender's close under the rule: it sent the messages of tags 1 and 2 (eager, or written
     * once announced: its close counts what it wrote too), then closed; a receive posted after the
     * close gets what was sent for its buffers, and one whose buffer no send took fails at once.
     */
    @ParameterizedTest
    @ValueSource(strings = {"", "\"eagerMaxSize\": 0"})
    void afterTheSendersCloseAReceiveCompletesFromWhatWasSentAndOnlyFromThat(String layout) throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, layout);
        Slabs s = new Slabs();
        if (!layout.isEmpty()) {
            // Without eager messages a send waits for its announcement: post first.
            RecvRequest both = p.recv().irecv(2, new long[] {s.dst.address, s.dst.address + 100}, new long[] {64, 64},
                    new int[] {1, 2}, new MrHandle[] {s.dstMr, s.dstMr});
            await(p.send().isend(s.src.address, 40, 2, s.srcMr), null);
            await(p.send().isend(s.src.address + 100, 50, 1, s.srcMr), null);
            long[] sizes = new long[2];
            await(both, sizes);
            assertArrayEquals(new long[] {50, 40}, sizes);
            p.send().close();
            RecvRequest unserved = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1},
                    new MrHandle[] {s.dstMr});
            RdmaException e = assertThrows(RdmaException.class, () -> await(unserved, null));
            assertTrue(e.getMessage().contains("the sender closed the connection"), e.getMessage());
            return;
        }
        await(p.send().isend(s.src.address, 40, 2, s.srcMr), null);
        await(p.send().isend(s.src.address + 100, 50, 1, s.srcMr), null);
        p.send().close();
        long[] sizes = new long[2];
        RecvRequest both = p.recv().irecv(2, new long[] {s.dst.address, s.dst.address + 100}, new long[] {64, 64},
                new int[] {1, 2}, new MrHandle[] {s.dstMr, s.dstMr});
        await(both, sizes);
        assertArrayEquals(new long[] {50, 40}, sizes);
        assertArrayEquals(s.src.bytes(100, 50), s.dst.bytes(0, 50));
        assertArrayEquals(s.src.bytes(0, 40), s.dst.bytes(100, 40));
        RecvRequest unserved = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1},
                new MrHandle[] {s.dstMr});
        RdmaException e = assertThrows(RdmaException.class, () -> await(unserved, null));
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().contains("the sender closed the connection"), e.getMessage());
    }

    /**
     * A failed receive keeps its ordinals: the message for its other buffer is dropped (not held,
     * its credit returned), and the next receive with that tag takes the next send with it.
     */
    @Test
    void theMessagesOfAFailedReceiveAreDroppedAndTheNextReceiveTakesTheNextSend() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        RecvRequest failing = p.recv().irecv(2, new long[] {s.dst.address, s.dst.address + 100}, new long[] {64, 64},
                new int[] {0, 1}, new MrHandle[] {s.dstMr, s.dstMr});
        await(p.send().isend(s.src.address, 100, 0, s.srcMr), null); // eager, larger than its buffer
        RdmaException e = assertThrows(RdmaException.class, () -> await(failing, null));
        assertEquals(ErrorCategory.INVALID_USAGE, e.category());
        await(p.send().isend(s.src.address + 200, 32, 1, s.srcMr), null); // for the failed receive's tag-1 buffer
        SendRequest next = p.send().isend(s.src.address + 300, 48, 1, s.srcMr);
        spin(20);
        assertEquals(1, p.recv().heldEagerMessages(), "the failed receive's message is dropped; the next one waits for"
                + " its buffer");
        long[] size = new long[1];
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address + 400}, new long[] {64}, new int[] {1},
                new MrHandle[] {s.dstMr});
        await(r, size);
        await(next, null);
        assertEquals(48, size[0], "the second send of tag 1, not the first");
        assertArrayEquals(s.src.bytes(300, 48), s.dst.bytes(400, 48));
    }

    /**
     * The sender's close may overtake its last write (shm reports a remote write's completion on
     * the data rail's queue, the close signal on the control rail's): the receive it fills is not
     * failed, since the close counts the written segment, and it completes when the segment comes.
     */
    @Test
    void aCloseThatOvertakesTheLastWriteDoesNotFailItsReceive() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "\"eagerMaxSize\": 0");
        Slabs s = new Slabs();
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {4096}, new int[] {0},
                new MrHandle[] {s.dstMr});
        SendRequest send = p.send().isend(s.src.address, 4096, 0, s.srcMr);
        for (int k = 0; k < 20 && send.state() != SendRequest.State.MOVING; k++) {
            a.progress(); // the announcement arrives, the write goes out; b reads nothing yet
        }
        assertEquals(SendRequest.State.MOVING, send.state());
        // The close signal as the sender sends it after this one write: it counts one segment.
        int word = Immediate.signal(Signal.SENDER_CLOSED, p.recv().id(), 1);
        b.lock();
        try {
            b.immediates.remoteData(0, 0, 0, (p.recv().token() & 0xffffffffL) << 32 | (word & 0xffffffffL));
        } finally {
            b.unlock();
        }
        long[] size = new long[1];
        await(r, size);
        assertEquals(4096, size[0]);
        assertArrayEquals(s.src.bytes(0, 4096), s.dst.bytes(0, 4096));
    }

    /**
     * Receives whose buffers all take eager messages take sequence numbers and send no
     * announcement: after 600 of them (more than the window of 256), the next announced receive's
     * number is far from the last announcement the sender saw, and its send still meets it.
     */
    @Test
    void anAnnouncementAfterManyUnannouncedReceivesIsTaken() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        for (int k = 0; k < 600; k++) {
            RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {0},
                    new MrHandle[] {s.dstMr});
            await(p.send().isend(s.src.address, 64, 0, s.srcMr), null);
            await(r, null);
        }
        RecvRequest large = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {100_000}, new int[] {0},
                new MrHandle[] {s.dstMr});
        await(p.send().isend(s.src.address, 100_000, 0, s.srcMr), null);
        long[] size = new long[1];
        await(large, size);
        assertEquals(100_000, size[0]);
        assertArrayEquals(s.src.bytes(0, 100_000), s.dst.bytes(0, 100_000));
    }
}
