package io.ofinet.rdma.recv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import org.junit.jupiter.api.Test;

/** A receive request's count of segments, heads and bytes, without an endpoint (docs/PROTOCOL.md, "Heads"). */
class RecvRequestTest {
    /**
     * The segments a head adds, as a receive counts them: the writes announce one more than they
     * are, and a head after every announced segment, or writes that count no head after one, are
     * the peer's error. A head whose writes never come leaves the buffer partial, for the stall check.
     */
    @Test
    void aHeadIsOneOfItsBuffersSegments() throws Exception {
        RecvRequest r = new RecvRequest(null, null);
        r.start(0, 1, false);
        r.capacity[0] = 100_000;
        r.head(0, 8192);
        assertEquals(1, r.partialBuffers(), "a head alone is part of a message");
        r.segment(0, 3, 50_000);
        r.segment(0, 3, 41_808);
        assertTrue(r.succeeded());
        assertEquals(100_000, r.received[0]);
        r.start(0, 1, false);
        r.capacity[0] = 100_000;
        r.segment(0, 1, 91_808);
        assertEquals("receive 0 buffer 0: a head after all 1 announced segments",
                assertThrows(RdmaException.class, () -> r.head(0, 8192)).getMessage());
        r.start(0, 1, false);
        r.capacity[0] = 100_000;
        r.head(0, 8192);
        assertEquals(ErrorCategory.REMOTE, assertThrows(RdmaException.class, () -> r.segment(0, 1, 91_808)).category(),
                "writes that count no head after one");
        r.start(0, 1, false);
        r.capacity[0] = 10_000;
        r.segment(0, 2, 8_000);
        assertEquals("receive 0 buffer 0: the peer reports 16192 bytes for a 10000-byte buffer",
                assertThrows(RdmaException.class, () -> r.head(0, 8192)).getMessage());
    }

    /**
     * A stall's hold is timed from the receive's last arrival: a buffer of its that settles (here an
     * eager message filling it) restarts the timer as a segment does, so that a sender still sending
     * into the receive's buffers does not find it abandoned (docs/PROTOCOL.md, "A failed receive
     * holds its failure").
     */
    @Test
    void aStallsHoldIsTimedFromTheLastBufferThatSettled() throws Exception {
        RecvRequest r = new RecvRequest(null, null);
        r.start(0, 3, false);
        r.announced = true;
        for (int i = 0; i < 3; i++) {
            r.capacity[i] = 100_000;
        }
        r.head(0, 8192);
        r.timedOut(new RdmaException(ErrorCategory.REMOTE, "buffer 0 stalled"));
        assertTrue(r.holdingFailure(), "buffers 1 and 2 may still take their sends");
        long stalledAt = r.partialSinceNanos;
        assertTrue(stalledAt != 0, "the hold is timed");
        while (System.nanoTime() == stalledAt) {
            Thread.onSpinWait();
        }
        r.eagerFilled(1, 50);
        assertTrue(r.holdingFailure(), "buffer 2 may still take its send");
        assertTrue(r.partialSinceNanos > stalledAt, "buffer 1's eager message restarted the timer");
    }
}
