package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.Peer.Completion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tagged part of the fabric contract: tagged messages matched by tag outside the ignored bits,
 * a message longer than its receive, messages that come before their receives, and cancels.
 * {@link FabricContract} extends it, so every provider implementation runs it.
 */
@Timeout(60)
public abstract class TaggedMessageContract extends FabricFixture {
    /** A tagged receive into {@code t.dst()} from {@code offset}. */
    private void trecv(Transfer t, long offset, long len, long tag, long ignore, long context) throws Exception {
        post(() -> b.endpoint.trecv(t.dst().address + offset, len, t.dstMr().descriptor(), Fi.ADDR_UNSPEC, tag,
                ignore, context));
    }

    /** A tagged message of {@code t.src()} from {@code offset}, with immediate data. */
    private void tsend(Transfer t, long offset, long len, long data, long tag, long context) throws Exception {
        post(() -> a.endpoint.tsenddata(t.src().address + offset, len, t.srcMr().descriptor(), data, aToB, tag,
                context));
    }

    @Test
    void aTaggedMessageLandsInTheReceiveWhoseTagMatchesOutsideItsIgnoredBits() throws Exception {
        Transfer t = transfer(8192, 5, 3 * 4096);
        trecv(t, 0, 4096, 7, 0, 70);
        trecv(t, 4096, 4096, 8, 0, 80);
        trecv(t, 8192, 4096, 0x1230, 0xF, 90);
        tsend(t, 4096, 1000, 0xBEEF, 8, 12);
        tsend(t, 0, 64, 0xF00D, 0x1235, 13);
        Completion eight = await(b, 80);
        assertFalse(eight.failed(), eight.toString());
        assertEquals(1000, eight.len());
        assertEquals(0xBEEF, eight.data());
        long flags = eight.flags();
        assertTrue((flags & Fi.TAGGED) != 0 && (flags & Fi.RECV) != 0 && (flags & Fi.REMOTE_CQ_DATA) != 0,
                "flags " + Long.toHexString(flags));
        assertArrayEquals(t.src().bytes(4096, 1000), t.dst().bytes(4096, 1000));
        Completion masked = await(b, 90);
        assertFalse(masked.failed(), masked.toString());
        assertArrayEquals(t.src().bytes(0, 64), t.dst().bytes(8192, 64));
        assertFalse(await(a, 12).failed());
        assertFalse(await(a, 13).failed());
        assertEquals(0, t.dst().get(0), "the receive posted first, with another tag, took nothing");
        assertNull(b.take(70));
    }

    @Test
    void aTaggedMessageLongerThanItsReceiveFailsItAndWritesNothingPastIt() throws Exception {
        Transfer t = transfer(4096, 9, 4096);
        t.dst().fill((byte) 0x5A);
        trecv(t, 0, 1024, 5, 0, 50);
        tsend(t, 0, 3000, 1, 5, 14);
        Completion truncated = await(b, 50);
        assertEquals(FiErrno.FI_ETRUNC, truncated.errno(), truncated.toString());
        for (long i = 1024; i < 4096; i++) {
            assertEquals(0x5A, t.dst().get(i), "byte " + i + " lies past the receive");
        }
    }

    @Test
    void taggedMessagesThatComeFirstWaitAndLandByTagWhenTheirReceivesArePosted() throws Exception {
        Transfer t = transfer(4096, 17, 4096);
        tsend(t, 0, 100, 22, 2, 16);
        tsend(t, 100, 200, 11, 1, 17);
        assertFalse(await(a, 16).failed());
        assertFalse(await(a, 17).failed());
        trecv(t, 0, 1024, 1, 0, 41);
        trecv(t, 1024, 1024, 2, 0, 42);
        Completion one = await(b, 41);
        Completion two = await(b, 42);
        assertEquals(200, one.len(), one.toString());
        assertEquals(11, one.data());
        assertEquals(100, two.len(), two.toString());
        assertArrayEquals(t.src().bytes(100, 200), t.dst().bytes(0, 200));
        assertArrayEquals(t.src().bytes(0, 100), t.dst().bytes(1024, 100));
    }

    @Test
    void aCancelledReceiveCompletesCancelledAndTakesNothing() throws Exception {
        Transfer t = transfer(4096, 13, 8192);
        trecv(t, 0, 4096, 9, 0, 60);
        posted(b.endpoint.cancel(60));
        Completion cancelled = await(b, 60);
        assertEquals(FiErrno.FI_ECANCELED, cancelled.errno(), cancelled.toString());
        trecv(t, 4096, 4096, 9, 0, 61);
        tsend(t, 0, 512, 2, 9, 15);
        assertFalse(await(b, 61).failed());
        assertArrayEquals(t.src().bytes(0, 512), t.dst().bytes(4096, 512));
        assertEquals(0, t.dst().get(0), "the cancelled receive's buffer is untouched");
        int none = b.endpoint.cancel(12345);
        assertTrue(none == Endpoint.POSTED || none == Endpoint.NOT_FOUND, "cancelling nothing is harmless: " + none);
    }
}
