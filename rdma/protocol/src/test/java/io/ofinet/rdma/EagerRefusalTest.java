package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.eager.EagerBuffer;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.Immediate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eager messages the receiver refuses or drops, on the in-memory provider: a message larger than its
 * buffer, a send too large for a receive that announces nothing, a header without the token, and
 * messages too large for the eager buffers. Nothing is written past a buffer, and the
 * communicators and endpoints go on.
 */
@Timeout(120)
class EagerRefusalTest extends EagerFixture {
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anEagerMessageLargerThanItsBufferFailsItsReceiveWritesNothingAndThePairGoesOn(boolean sendFirst)
            throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Pair other = pair(b.listen());
        Slabs s = new Slabs();
        s.dst.fill((byte) 0x5A);
        RecvRequest r = null;
        if (!sendFirst) {
            r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1}, new MrHandle[] {s.dstMr});
        }
        SendRequest send = p.send().isend(s.src.address, 100, 1, s.srcMr);
        spin(10);
        if (sendFirst) {
            r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1}, new MrHandle[] {s.dstMr});
        }
        RecvRequest failed = r;
        RdmaException received = assertThrows(RdmaException.class, () -> await(failed, new long[1]));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        assertEquals("irecv: the sender's message of 100 bytes did not fit receive buffer 0 of 64 bytes (tag 1);"
                + " nothing was written", received.getMessage());
        for (int i = 0; i < 64 + CANARY; i++) {
            assertEquals(0x5A, s.dst.get(i), "byte " + i + " was written");
        }
        // The send went out whole before the receiver could refuse it: it stays done, the refusal
        // is counted on its communicator, and the pair goes on.
        await(send, null);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.send().statistics().refusedAfterDone() == 0 && System.nanoTime() < deadline) {
            spin(1);
        }
        assertEquals(1, p.send().statistics().refusedAfterDone(), "the refusal reached the sender");
        assertEquals(null, p.send().liveness().dead(), "the sender's communicator goes on");
        RecvRequest next = p.recv().irecv(1, new long[] {s.dst.address + 8192}, new long[] {64}, new int[] {1},
                new MrHandle[] {s.dstMr});
        SendRequest nextSend = p.send().isend(s.src.address, 8, 1, s.srcMr);
        await(nextSend, null);
        long[] nextSize = new long[1];
        await(next, nextSize);
        assertEquals(8, nextSize[0]);
        assertArrayEquals(s.src.bytes(0, 8), s.dst.bytes(8192, 8));
        // Another communicator of the same endpoints goes on.
        RecvRequest r2 = other.recv().irecv(1, new long[] {s.dst.address + 4096}, new long[] {64}, new int[] {2},
                new MrHandle[] {s.dstMr});
        SendRequest s2 = other.send().isend(s.src.address, 64, 2, s.srcMr);
        await(s2, null);
        await(r2, null);
        assertArrayEquals(s.src.bytes(0, 64), s.dst.bytes(4096, 64));
    }

    /**
     * A send too large for a receive that sends no announcement (its buffer takes an eager
     * message whole) is refused on both sides once its request to send has gone, {@code rtsDelayUs} after
     * it reached the head of its queue; nothing is written.
     */
    @Test
    void aSendTooLargeForASmallReceiveIsRefusedAfterTheRtsDelay() throws Exception {
        long delayMs = 50;
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "\"rtsDelayUs\": " + delayMs * 1000);
        Slabs s = new Slabs();
        s.dst.fill((byte) 0x5A);
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {4096}, new int[] {1},
                new MrHandle[] {s.dstMr});
        long start = System.nanoTime();
        SendRequest send = p.send().isend(s.src.address, 20000, 1, s.srcMr);
        RdmaException sent = assertThrows(RdmaException.class, () -> await(send, null));
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category());
        assertTrue(waitedMs >= delayMs, "refused after " + waitedMs + " ms, before the request to send could go");
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, null));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        for (int i = 0; i < 4096 + CANARY; i++) {
            assertEquals(0x5A, s.dst.get(i), "byte " + i + " was written");
        }
    }

    /**
     * An eager message whose header lacks the communicator's token (where CQ data has 4 bytes the
     * header carries the only token) is dropped and counted as forged; the communicator goes on.
     */
    @Test
    void anEagerMessageWithoutTheTokenIsDroppedNotCharged() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1},
                new MrHandle[] {s.dstMr});
        b.lock();
        try {
            EagerBuffer forged = b.pools.eager.acquire();
            EagerMessageHeader.encode(b.commParts.memory(), forged.address, EagerMessageHeader.KIND_EAGER,
                    0, 1, 8, p.recv().token() + 1);
            int word = Immediate.encode(Immediate.TYPE_DATA, 1, 0,
                    p.recv().id(), 0);
            long data = (p.recv().token() & 0xffffffffL) << 32 | (word & 0xffffffffL);
            assertFalse(b.immediates.eager(0, forged, EagerMessageHeader.BYTES + 8, data), "not held");
            b.pools.eager.release(forged);
            assertEquals(1, b.immediates.forged());
            assertTrue(p.recv().liveness().dead() == null, "the communicator is not charged");
        } finally {
            b.unlock();
        }
        await(p.send().isend(s.src.address, 64, 1, s.srcMr), null);
        long[] got = new long[1];
        await(r, got);
        assertEquals(64, got[0]);
        assertArrayEquals(s.src.bytes(0, 64), s.dst.bytes(0, 64));
    }

    /**
     * A second eager message for a buffer the first filled (the same tag and ordinal): the peer
     * broke the protocol, so the communicator fails, and with it the receive, done or not.
     */
    @Test
    void aSecondEagerMessageForAFilledBufferFailsTheCommunicator() throws Exception {
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, "");
        Slabs s = new Slabs();
        assertTrue(arriveEager(p), "held for tag 1's first buffer");
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {1},
                new MrHandle[] {s.dstMr});
        assertEquals(0, p.recv().heldEagerMessages(), "no longer held");
        assertFalse(arriveEager(p), "not held");
        RdmaException e = assertThrows(RdmaException.class, () -> await(r, null));
        assertEquals("receive communicator " + p.recv().id() + ": eager message 0 for buffer 0 of receive 0, which"
                + " something else took", e.getMessage());
    }

    /**
     * An eager message of 8 bytes with tag 1 and ordinal 0, as {@code p}'s sender would send its
     * first, arrives at b; returns whether b holds its buffer (one not held is given back).
     */
    private boolean arriveEager(Pair p) {
        int word = Immediate.encode(Immediate.TYPE_DATA, 1, 0, p.recv().id(), 0);
        long data = (p.recv().token() & 0xffffffffL) << 32 | (word & 0xffffffffL);
        b.lock();
        try {
            EagerBuffer buffer = b.pools.eager.acquire();
            EagerMessageHeader.encode(b.commParts.memory(), buffer.address, EagerMessageHeader.KIND_EAGER, 0, 1, 8,
                    p.recv().token());
            boolean held = b.immediates.eager(0, buffer, EagerMessageHeader.BYTES + 8, data);
            if (!held) {
                b.pools.eager.release(buffer);
            }
            return held;
        } finally {
            b.unlock();
        }
    }

    @Test
    void messagesTooLargeForTheEagerBuffersAreCountedAndTheBuffersStayPosted() throws Exception {
        String small = "\"rdmaMinPostedEagerBuffers\": 4, \"rdmaMaxPostedEagerBuffers\": 4";
        Pair p = connect(MemProvider.builder().domains(1).build(), 1, small);
        Slabs s = new Slabs();
        // A third process's endpoint: more oversized messages than the posted buffers could fail in
        // a row, each meeting one with FI_ETRUNC.
        int messages = (KeptReceive.MAX_FAILURES_IN_A_ROW + 1) * 4 + 1;
        try (Device third = Device.open(provider, Layouts.mem(1, small))) {
            RdmaEndpoint hostile = third.openEndpoint();
            Endpoint raw = hostile.railSet.dataEndpoint(0);
            long target = hostile.railSet.av(0).insert(b.railSet.dataEndpoint(0).name());
            HostBuffer big = buffer(2 * b.pools.eager.bufferBytes());
            MrHandle mr = hostile.registerUserBuffer(big.address, big.size);
            long desc = mr.descriptor(RailKind.DATA, 0);
            int word = Immediate.encode(Immediate.TYPE_DATA, 1, 0,
                    p.recv().id(), 0);
            for (int i = 0; i < messages; i++) {
                while (raw.senddata(big.address, big.size, desc, word, target, 0) != Endpoint.POSTED) {
                    b.progress();
                }
                b.progress();
            }
            spin(50);
            mr.close();
        }
        assertEquals(messages, b.immediates.malformed(), "each oversized message dropped and counted once");
        for (int i = 0; i < 8; i++) {
            RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {64}, new int[] {i},
                    new MrHandle[] {s.dstMr});
            await(p.send().isend(s.src.address + i, 64, i, s.srcMr), null);
            await(r, null);
            assertArrayEquals(s.src.bytes(i, 64), s.dst.bytes(0, 64), "message " + i + " after the attack");
        }
    }
}
