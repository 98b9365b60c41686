package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Fi;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.Signal;
import io.ofinet.rdma.wire.TaggedData;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * writeNotice tagged on the in-memory provider: receive buffers larger than an eager message take
 * the send as one tagged message into a receive posted before the announcement, and no write;
 * the tagged receives of receives that end otherwise are cancelled, and nothing else lands in them.
 */
@Timeout(120)
class TaggedDataTest extends TwoHostFixture {
    private static final int EAGER = 4096;
    private static final String TAGGED = "\"minStripeSize\": 4096, \"eagerMaxSize\": 4096, \"writeNotice\": \"tagged\"";

    private SendComm send;
    private RecvComm recv;

    private void connect(MemProvider memProvider, int rails) throws Exception {
        connect(memProvider, rails, "");
    }

    private void connect(MemProvider memProvider, int rails, String extra) throws Exception {
        ConnectedPair pair = openAndConnect(memProvider, Layouts.mem(rails, TAGGED + extra));
        send = pair.send();
        recv = pair.recv();
    }

    private void connect(int rails) throws Exception {
        connect(MemProvider.builder().domains(rails).build(), rails);
    }

    private RecvRequest irecv(HostBuffer dst, long size, int tag) throws Exception {
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {size}, new int[] {tag},
                new MrHandle[] {register(b, deviceB, dst)});
        assertNotNull(r);
        return r;
    }

    private void transfer(long sendSize, long recvSize, int tag) throws Exception {
        transfer(send, recv, sendSize, recvSize, tag);
    }

    private static void assertCanary(HostBuffer dst, long from) {
        for (long i = from; i < dst.size; i++) {
            assertEquals(0x5A, dst.get(i), "byte " + i + " was written");
        }
    }

    /**
     * Sends {@code bytes} of {@code from} as a tagged message with {@code tag} from the sender's
     * data rail {@code rail} to the receiver's, past the protocol: what a peer that lies would send.
     */
    private void forge(int rail, HostBuffer from, MrHandle mr, long bytes, long tag) throws Exception {
        a.lock();
        try {
            assertEquals(0, a.railSet.dataEndpoint(rail).tsenddata(from.address, bytes, mr.descriptor(RailKind.DATA,
                    rail), 0, send.connection().dataPeer(rail), tag, 0));
        } finally {
            a.unlock();
        }
    }

    /** Drives both sides until the announcements posted so far have reached the sender (quiet rails too). */
    private void announcementsArrive() throws Exception {
        spin(4 * EndpointStep.QUIET_EVERY);
    }

    @ParameterizedTest
    @CsvSource({"1, false", "2, false", "1, true", "3, true"})
    void everyLargeBufferTakesOneTaggedMessageAndNoWrite(int rails, boolean endpointMr) throws Exception {
        MemProvider.Builder builder = MemProvider.builder().domains(rails).outOfOrderCompletions(rails * 31L + 1);
        connect(endpointMr ? builder.endpointMr().build() : builder.build(), rails);
        int aOps = a.pools.ops.inUse();
        int bOps = b.pools.ops.inUse();
        long[] sizes = {0, 1, 4095, 4096, 4097, 8192, 12289, 65536, 1 << 20, 8 << 20};
        int tag = 0;
        long large = 0;
        for (long size : sizes) {
            transfer(size, size, tag++);
            large += size > EAGER ? 1 : 0;
        }
        assertEquals(large, a.counts().taggedSent(), "tagged messages sent");
        assertEquals(large, b.counts().taggedReceived(), "tagged messages received");
        assertEquals(0, a.counts().writesPosted() + a.counts().writesNoticed(), "writes");
        assertEquals(0, a.counts().headsSent(), "heads");
        assertOpsReturn(aOps, bOps);
    }

    /**
     * A buffer that takes one tagged message is never written, so its announcement hands the
     * sender no address and no key into the receiver's registration.
     */
    @Test
    void aTaggedBufferIsAnnouncedWithoutAddressOrKey() throws Exception {
        connect(1);
        transfer(65536, 65536, 3);
        Announcement tagged = seenBySender(send, 0);
        assertTrue(tagged.tagged(0), "the buffer took a tagged message");
        assertEquals(0, tagged.address(0), "address");
        assertEquals(0, tagged.key(0, 0), "key");
    }

    /** A written buffer's announcement has its key: the reading above is not blind. */
    @Test
    void aWrittenBufferIsAnnouncedWithItsKey() throws Exception {
        ConnectedPair pair = openAndConnect(MemProvider.builder().domains(1).build(),
                Layouts.mem(1, "\"eagerMaxSize\": 4096, \"writeNotice\": \"message\""));
        transfer(pair.send(), pair.recv(), 65536, 65536, 3);
        Announcement written = seenBySender(pair.send(), 0);
        assertFalse(written.tagged(0), "the buffer was written");
        assertNotEquals(0, written.key(0, 0), "key");
        assertNotEquals(0, written.address(0) + written.key(0, 0), "address and key");
    }

    /**
     * A request to send can still arrive for a buffer its tagged message filled (the two take
     * different receives on the data rail): the receive, done already, is counted once.
     */
    @Test
    void aReceiveDoneIsCountedOnceWhateverArrivesForItLater() throws Exception {
        connect(1);
        HostBuffer src = buffer(65536).pattern(5);
        HostBuffer dst = buffer(65536);
        RecvRequest r = irecv(dst, 65536, 4);
        SendRequest s = send.isend(src.address, 65536, 4, register(a, deviceA, src));
        await(s, null);
        await(r, null);
        long messages = recv.statistics().messages();
        long bytes = recv.statistics().bytes();
        recv.progressed(r); // what a late request to send for its buffer does
        assertEquals(messages, recv.statistics().messages(), "receives counted");
        assertEquals(bytes, recv.statistics().bytes(), "bytes counted");
        assertEquals(1, messages);
    }

    /** The announcement of receive {@code seq} as its sender decoded it: what the sender was handed. */
    private static Announcement seenBySender(SendComm send, int seq) throws Exception {
        Field sequencer = SendComm.class.getDeclaredField("sequencer");
        sequencer.setAccessible(true);
        Object s = sequencer.get(send);
        Field announced = s.getClass().getDeclaredField("announced");
        announced.setAccessible(true);
        Object receives = announced.get(s);
        Method at = receives.getClass().getDeclaredMethod("at", int.class);
        at.setAccessible(true);
        return (Announcement) at.invoke(receives, seq % Limits.WINDOW);
    }

    /**
     * A send of at most an eager message that goes before the announcement reaches the sender
     * fills the buffer eagerly; the buffer's tagged receive is cancelled, and the receive reports
     * done only once the provider has answered the cancel.
     */
    @Test
    void aSmallSendMatchedByTagFillsTheBufferAndItsTaggedReceiveIsCancelled() throws Exception {
        connect(2);
        int aOps = a.pools.ops.inUse();
        int bOps = b.pools.ops.inUse();
        transfer(100, 65536, 1);
        assertEquals(1, b.counts().taggedReceivesPosted(), "tagged receives posted");
        assertEquals(0, b.counts().taggedReceived(), "tagged receives that took a message");
        assertEquals(0, a.counts().taggedSent());
        assertOpsReturn(aOps, bOps);
        transfer(65536, 65536, 2); // the communicator goes on
        assertEquals(1, b.counts().taggedReceived());
    }

    @Test
    void aSmallSendAfterTheAnnouncementGoesAsATaggedMessage() throws Exception {
        connect(1);
        HostBuffer src = buffer(100).pattern(5);
        HostBuffer dst = buffer(65536 + CANARY).fill((byte) 0x5A);
        RecvRequest r = irecv(dst, 65536, 3);
        announcementsArrive();
        SendRequest s = send.isend(src.address, 100, 3, register(a, deviceA, src));
        long[] sizes = new long[1];
        await(s, null);
        await(r, sizes);
        assertEquals(100, sizes[0]);
        assertArrayEquals(src.bytes(0, 100), dst.bytes(0, 100));
        assertCanary(dst, 100);
        assertEquals(1, a.counts().taggedSent());
    }

    @Test
    void aGroupedReceiveTakesEachTaggedMessageInTheBufferWithItsTag() throws Exception {
        connect(MemProvider.builder().domains(2).outOfOrderCompletions(7).build(), 2);
        HostBuffer[] dst = {buffer(20000), buffer(20000), buffer(20000)};
        RecvRequest r = irecvGroup(recv, dst, 20000, 7, 8, 9);
        announcementsArrive();
        int[] tags = {9, 7, 8};
        long[] lengths = {19000, 7000, 0};
        HostBuffer[] src = new HostBuffer[3];
        for (int i = 0; i < 3; i++) {
            src[i] = buffer(lengths[i]).pattern(tags[i]);
            await(send.isend(src[i].address, lengths[i], tags[i], register(a, deviceA, src[i])), null);
        }
        long[] sizes = new long[3];
        await(r, sizes);
        assertArrayEquals(new long[] {7000, 0, 19000}, sizes, "sizes by buffer: tags 7, 8, 9");
        assertArrayEquals(src[1].bytes(0, 7000), dst[0].bytes(0, 7000));
        assertArrayEquals(src[0].bytes(0, 19000), dst[2].bytes(0, 19000));
        assertEquals(3, a.counts().taggedSent());
    }

    @Test
    void aSendTooLargeIsRefusedOnBothSidesAndItsTaggedReceiveCancelled() throws Exception {
        connect(1);
        int aOps = a.pools.ops.inUse();
        int bOps = b.pools.ops.inUse();
        HostBuffer src = buffer(16384).pattern(1);
        HostBuffer dst = buffer(8192 + CANARY).fill((byte) 0x5A);
        RecvRequest r = irecv(dst, 8192, 1);
        announcementsArrive();
        SendRequest s = send.isend(src.address, 16384, 1, register(a, deviceA, src));
        RdmaException sent = assertThrows(RdmaException.class, () -> await(s, null));
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category());
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, new long[1]));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        assertTrue(received.getMessage().contains("did not fit receive buffer 0 of 8192 bytes"), received.getMessage());
        assertCanary(dst, 0);
        assertOpsReturn(aOps, bOps);
        transfer(8192, 8192, 2);
    }

    /**
     * A peer that knows the tag sends more than the buffer holds: the provider fails the tagged
     * receive (FI_ETRUNC), the receive fails with what the provider said, nothing lands past the
     * buffer, and the communicator goes on.
     */
    @Test
    void aTaggedMessageLargerThanItsBufferFailsTheReceiveAndWritesNothingPast() throws Exception {
        connect(1);
        HostBuffer dst = buffer(8192 + CANARY).fill((byte) 0x5A);
        RecvRequest r = irecv(dst, 8192, 1);
        announcementsArrive();
        HostBuffer big = buffer(16384).fill((byte) 0xEE);
        MrHandle bigMr = register(a, deviceA, big);
        forge(0, big, bigMr, 16384, TaggedData.tag(recv.token(), recv.id(), 0, 0));
        RdmaException e = assertThrows(RdmaException.class, () -> await(r, new long[1]));
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().contains("the message into buffer 0 failed")
                && e.getMessage().contains("tagged receive on data rail 0 failed: FI_ETRUNC"), e.getMessage());
        assertCanary(dst, 8192);
        // The real sender's message for that receive lands nowhere; the next receive takes its own.
        await(send.isend(big.address, 8192, 1, bigMr), null);
        transfer(65536, 65536, 2);
        assertCanary(dst, 8192);
    }

    /**
     * A tagged message that names the receive but lacks the communicator's token, or names another
     * receive, matches no posted receive: it lands nowhere, and the real message lands whole.
     */
    @Test
    void aTaggedMessageWithAWrongTokenOrSequenceLandsNowhere() throws Exception {
        connect(1);
        HostBuffer dst = buffer(65536 + CANARY).fill((byte) 0x5A);
        HostBuffer forged = buffer(65536).fill((byte) 0xEE);
        MrHandle forgedMr = register(a, deviceA, forged);
        RecvRequest r = irecv(dst, 65536, 1);
        announcementsArrive();
        long[] wrongTags = {TaggedData.tag(recv.token() + 1, recv.id(), 0, 0), TaggedData.tag(recv.token(), recv.id(),
                1, 0), TaggedData.tag(recv.token(), recv.id() + 1, 0, 0)};
        for (long tag : wrongTags) {
            forge(0, forged, forgedMr, 65536, tag);
        }
        spin(50);
        assertCanary(dst, 0);
        HostBuffer src = buffer(65536).pattern(9);
        SendRequest s = send.isend(src.address, 65536, 1, register(a, deviceA, src));
        long[] sizes = new long[1];
        await(s, null);
        await(r, sizes);
        assertEquals(65536, sizes[0]);
        assertArrayEquals(src.bytes(0, 65536), dst.bytes(0, 65536));
        assertCanary(dst, 65536);
    }

    /**
     * A sender that says it has closed having served both receives, and sent nothing (a peer that
     * lies): the receive communicator's close, which then waits for nothing, still cancels their
     * tagged receives before it returns, and what would be sent into them lands nowhere.
     */
    @Test
    void closingTheReceiveCommunicatorCancelsItsTaggedReceives() throws Exception {
        connect(2);
        HostBuffer dst = buffer(65536 + CANARY).fill((byte) 0x5A);
        irecv(dst, 65536, 1);
        recv.irecv(1, new long[] {dst.address}, new long[] {65536}, new int[] {2},
                new MrHandle[] {register(b, deviceB, dst)});
        announcementsArrive();
        assertEquals(2, b.counts().taggedReceivesPosted());
        int word = Immediate.signal(Signal.SENDER_CLOSED, recv.id(), 2);
        for (int rail = 0; rail < 2; rail++) {
            a.lock();
            try {
                assertEquals(0, a.railSet.dataEndpoint(rail).senddata(0, 0, 0, a.railSet.immediate(word,
                        recv.token() & 0xffffffffL), send.connection().dataPeer(rail), 0));
            } finally {
                a.unlock();
            }
        }
        spin(20);
        recv.close();
        int token = recv.token();
        int id = recv.id();
        recv.close();
        // What the sender would send into either receive now lands nowhere.
        HostBuffer late = buffer(65536).fill((byte) 0xEE);
        MrHandle lateMr = register(a, deviceA, late);
        for (int seq = 0; seq < 2; seq++) {
            forge(seq, late, lateMr, 65536, TaggedData.tag(token, id, seq, 0)); // receive seq's rail is seq
        }
        spin(50);
        assertEquals(0, b.counts().taggedReceived());
        assertCanary(dst, 0);
    }

    /** A sender that closes without sending: the receive fails at once, its tagged receive cancelled. */
    @Test
    void aSenderThatClosesFailsTheReceiveAndItsTaggedReceiveIsCancelled() throws Exception {
        connect(1);
        int bOps = b.pools.ops.inUse();
        HostBuffer dst = buffer(65536);
        RecvRequest r = irecv(dst, 65536, 1);
        announcementsArrive();
        send.close();
        RdmaException e = assertThrows(RdmaException.class, () -> await(r, new long[1]));
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().contains("closed the connection before sending"), e.getMessage());
        for (int i = 0; i < 100 && b.pools.ops.inUse() > bOps; i++) {
            spin(1);
        }
        assertEquals(bOps, b.pools.ops.inUse(), "a tagged receive still posted");
        assertTrue((b.railSet.dataEndpoint(0).info().caps() & Fi.TAGGED) != 0, "FI_TAGGED asked for");
    }

    /**
     * A receive that failed with its tagged receive still posted (its peer condemned): its close
     * waits for the provider to end that receive, which may write into the buffer until then.
     */
    @Test
    void theCloseWaitsForTheTaggedReceivesOfReceivesThatFailedAlready() throws Exception {
        connect(1);
        int bOps = b.pools.ops.inUse();
        HostBuffer dst = buffer(65536);
        RecvRequest r = irecv(dst, 65536, 1);
        announcementsArrive();
        b.lock();
        try {
            recv.connection().condemn(new RdmaException(ErrorCategory.REMOTE, "the sender's process ended"));
        } finally {
            b.unlock();
        }
        assertThrows(RdmaException.class, () -> r.test(null), "failed at once");
        assertEquals(bOps + 1, b.pools.ops.inUse(), "its tagged receive is still posted");
        recv.close();
        assertEquals(bOps, b.pools.ops.inUse(), "a tagged receive still posted when closeRecv returned");
    }

    /**
     * A sender gone silent (its endpoint held by another thread) uses up the close's wait for its
     * confirmation, and the provider answers the cancel of the tagged receive late, as rxm answers
     * one for a receive whose message it is still taking in: the close still returns only once the
     * answer has come, when the application may free the buffer.
     */
    @Test
    void aCloseThatWaitedOutASilentSenderStillWaitsForItsCancelsToBeAnswered() throws Exception {
        long peerTimeoutMs = TestTime.ms(2000);
        connect(MemProvider.builder().domains(1).build(), 1, ", \"peerTimeoutMs\": " + peerTimeoutMs);
        transfer(100, 100, 7); // the sender is heard from just before it goes silent
        irecv(buffer(65536), 65536, 1);
        announcementsArrive();
        assertTrue(recv.taggedPosted(), "its tagged receive is posted");
        provider.faults().holdCancels(b.railSet.dataEndpoint(0), 1, TimeUnit.MILLISECONDS.toNanos(peerTimeoutMs / 4));
        CountDownLatch silent = new CountDownLatch(1);
        CountDownLatch speak = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            a.lock();
            try {
                silent.countDown();
                speak.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                a.unlock();
            }
        }, "silent-sender");
        holder.start();
        try {
            silent.await();
            long start = System.nanoTime();
            recv.close();
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs >= peerTimeoutMs - 100, "the close waited for the silent sender: " + tookMs + " ms");
            assertFalse(recv.taggedPosted(), "closeRecv returned with its tagged receive still posted");
        } finally {
            speak.countDown();
            holder.join();
        }
    }

    /**
     * An endpoint closed with several receive communicators whose tagged receives the provider does
     * not answer the cancels of (each matched mid-message) waits for those answers within one
     * {@code peerTimeoutMs} for them all, as it waits for their senders: a close of N such
     * communicators took N of them.
     */
    @Test
    void anEndpointsCloseWaitsForUnansweredCancelsOnceForAllItsReceiveCommunicators() throws Exception {
        long peerTimeoutMs = TestTime.ms(1000);
        connect(MemProvider.builder().domains(1).build(), 1, ", \"peerTimeoutMs\": " + peerTimeoutMs);
        int comms = 4;
        ListenComm listen = b.listen();
        for (int i = 0; i < comms; i++) {
            ConnectedPair pair = i == 0 ? new ConnectedPair(send, recv) : ConnectionTest.establish(a, b, listen);
            transfer(pair.send(), pair.recv(), 100, 100, 7);
            HostBuffer dst = buffer(65536);
            assertNotNull(pair.recv().irecv(1, new long[] {dst.address}, new long[] {65536}, new int[] {1},
                    new MrHandle[] {register(b, deviceB, dst)}));
        }
        announcementsArrive();
        provider.faults().holdCancels(b.railSet.dataEndpoint(0), comms, TimeUnit.DAYS.toNanos(1));
        long start = System.nanoTime();
        b.close(); // the senders are not driven meanwhile: they stay silent too
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs < 3 * peerTimeoutMs, comms + " communicators' closes took " + tookMs
                + " ms: one peerTimeoutMs (" + peerTimeoutMs + " ms) for the senders, one for the cancels");
    }
}
