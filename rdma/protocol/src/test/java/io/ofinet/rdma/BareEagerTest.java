package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.EagerHeader;
import io.ofinet.rdma.wire.Immediate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bare eager messages (docs/PROTOCOL.md, "Bare eager messages") on the in-memory provider under
 * shm's name, so that the eager buffers stop at shm's inject size (4,096 bytes): payloads of up to
 * 4,080 bytes travel behind the 16-byte header, longer ones up to 4,096 bare, with the tag in the
 * CQ data, and a 4 KiB message is still one message.
 */
@Timeout(120)
class BareEagerTest extends TwoHostFixture {
    private static final int SLAB = 64 * 1024;
    private static final long HEADED = RailSet.SHM_INJECT_BYTES - EagerHeader.BYTES;

    private Pair connect(int rails, long outOfOrderSeed) throws Exception {
        String[] domains = new String[rails];
        for (int r = 0; r < rails; r++) {
            domains[r] = "mem" + r;
        }
        Object[] comms = openAndConnect(MemProvider.builder().named("shm").domains(rails)
                .outOfOrderCompletions(outOfOrderSeed).build(), Layouts.device("shm", domains, ""));
        return new Pair((SendComm) comms[0], (RecvComm) comms[1]);
    }

    private record Pair(SendComm send, RecvComm recv) {
    }

    /** A patterned source on a, a destination on b filled with 0x5A, both registered. */
    private final class Slabs {
        final HostBuffer src;
        final HostBuffer dst = buffer(SLAB);
        final MrHandle srcMr;
        final MrHandle dstMr;

        Slabs(int pattern) throws Exception {
            src = buffer(SLAB).pattern(pattern);
            srcMr = register(a, deviceA, src);
            dstMr = register(b, deviceB, dst);
            dst.fill((byte) 0x5A);
        }
    }

    @Test
    void theEagerLimitIsShmsInjectSizeAndLongerPayloadsGoBare() throws Exception {
        connect(1, 0);
        assertEquals(RailSet.SHM_INJECT_BYTES, b.pools.eager.bufferBytes());
        assertEquals(RailSet.SHM_INJECT_BYTES, b.pools.eager.payloadBytes());
        assertEquals(HEADED, b.pools.eager.headedBytes());
        assertTrue(b.pools.eager.bareAllowed());
    }

    /**
     * Sizes on both sides of the header's limit, sent before and after their receives over two
     * rails that complete out of order: each arrives whole, nothing is written past it, and none
     * takes the rendezvous path (no write, no control message) until 4,097 bytes.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void payloadsUpToTheInjectSizeAreOneMessageEach(boolean sendsFirst) throws Exception {
        Pair p = connect(2, 3);
        Slabs s = new Slabs(5);
        long[] sizes = {HEADED, HEADED + 1, 4095, 4096, 1, 4096, 0, 4090};
        List<SendRequest> sends = new ArrayList<>();
        List<RecvRequest> receives = new ArrayList<>();
        long writes = writes();
        for (int phase = 0; phase < 2; phase++) {
            long offset = 0;
            for (int i = 0; i < sizes.length; i++) {
                if ((phase == 0) == sendsFirst) {
                    sends.add(p.send().isend(s.src.address + offset + i, sizes[i], 100 + i, s.srcMr));
                } else {
                    receives.add(p.recv().irecv(1, new long[] {s.dst.address + offset}, new long[] {4096},
                            new int[] {100 + i}, new MrHandle[] {s.dstMr}));
                }
                offset += 4096 + 64;
            }
            spin(5);
        }
        long offset = 0;
        for (int i = 0; i < sizes.length; i++) {
            long[] got = new long[1];
            await(sends.get(i), null);
            await(receives.get(i), got);
            assertEquals(sizes[i], got[0], "size of message " + i);
            assertArrayEquals(s.src.bytes(offset + i, (int) sizes[i]), s.dst.bytes(offset, (int) sizes[i]), "message " + i);
            for (long k = offset + sizes[i]; k < offset + 4096 + 64; k++) {
                assertEquals(0x5A, s.dst.get(k), "message " + i + " wrote byte " + (k - offset));
            }
            offset += 4096 + 64;
        }
        assertEquals(writes, writes(), "no message took the rendezvous path");
        assertEquals(0, p.recv().inbox.held());

        // One byte more is a rendezvous: a control message, then a write.
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {4097}, new int[] {1},
                new MrHandle[] {s.dstMr});
        await(p.send().isend(s.src.address, 4097, 1, s.srcMr), null);
        await(r, null);
        assertArrayEquals(s.src.bytes(0, 4097), s.dst.bytes(0, 4097));
        assertEquals(writes + 1, writes(), "4,097 bytes: one write");
    }

    /** Writes the sender posted: with immediate data, and with a notice after them. */
    private long writes() {
        return a.counts().writesPosted() + a.counts().writesNoticed();
    }

    /** A grouped receive with tags meets bare and headed messages by tag, in send order, either side first. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void groupedReceivesMatchBareMessagesByTag(boolean sendsFirst) throws Exception {
        Pair p = connect(2, 5);
        Slabs s = new Slabs(9);
        int[] tags = {7, 3, 7, 5};
        int[] sendTags = {5, 7, 3, 7};
        long[] sendSizes = {4096, 4081, 100, 4096};
        int[] lands = {3, 0, 1, 2};
        long[] addresses = new long[tags.length];
        long[] capacities = new long[tags.length];
        MrHandle[] mrs = new MrHandle[tags.length];
        for (int i = 0; i < tags.length; i++) {
            addresses[i] = s.dst.address + i * 8192L;
            capacities[i] = 4096;
            mrs[i] = s.dstMr;
        }
        RecvRequest r = sendsFirst ? null : p.recv().irecv(tags.length, addresses, capacities, tags, mrs);
        List<SendRequest> sends = new ArrayList<>();
        for (int k = 0; k < sendTags.length; k++) {
            sends.add(p.send().isend(s.src.address + k * 5000L, sendSizes[k], sendTags[k], s.srcMr));
        }
        spin(10);
        if (sendsFirst) {
            r = p.recv().irecv(tags.length, addresses, capacities, tags, mrs);
        }
        for (SendRequest send : sends) {
            await(send, null);
        }
        long[] got = new long[tags.length];
        await(r, got);
        for (int k = 0; k < sendTags.length; k++) {
            int i = lands[k];
            assertEquals(sendSizes[k], got[i], "buffer " + i);
            assertArrayEquals(s.src.bytes(k * 5000L, (int) sendSizes[k]), s.dst.bytes(i * 8192L, (int) sendSizes[k]),
                    "send " + k);
        }
    }

    /** A bare message larger than its receive buffer fails both sides, and writes nothing. */
    @Test
    void aBareMessageLargerThanItsBufferFailsBothSidesAndWritesNothing() throws Exception {
        Pair p = connect(1, 0);
        Slabs s = new Slabs(3);
        SendRequest send = p.send().isend(s.src.address, 4096, 1, s.srcMr);
        spin(10);
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {4000}, new int[] {1},
                new MrHandle[] {s.dstMr});
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, new long[1]));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        assertEquals("irecv: the sender's message of 4096 bytes did not fit receive buffer 0 of 4000 bytes (tag 1);"
                + " nothing was written", received.getMessage());
        for (int i = 0; i < 8192; i++) {
            assertEquals(0x5A, s.dst.get(i), "byte " + i + " was written");
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.send().liveness().dead == null && System.nanoTime() < deadline) {
            spin(1);
        }
        RdmaException sent = assertThrows(RdmaException.class, () -> {
            await(send, null);
            p.send().isend(s.src.address, 8, 1, s.srcMr);
        });
        assertEquals("isend: the receiver reports that eager message 0 did not fit its receive buffer",
                sent.getMessage());
    }

    /**
     * A bare message carries no token: a third endpoint that sends one naming a communicator and a
     * tag its receive waits for is dropped as forged by its source, and the communicator goes on.
     * A bare message in a form the receiver does not know, or of impossible length, is dropped or
     * fails only the communicator it names.
     */
    @Test
    void aBareMessageFromAnotherSourceIsDroppedNotCharged() throws Exception {
        Pair p = connect(1, 0);
        Slabs s = new Slabs(4);
        RecvRequest r = p.recv().irecv(1, new long[] {s.dst.address}, new long[] {4096}, new int[] {42},
                new MrHandle[] {s.dstMr});
        try (Device third = Device.open(provider, Layouts.device("shm", new String[] {"mem0"}, ""))) {
            RdmaEndpoint hostile = third.openEndpoint();
            io.ofinet.fabric.Endpoint raw = hostile.railSet.dataEndpoint(0);
            long target = hostile.railSet.av(0).insert(b.railSet.dataEndpoint(0).name());
            HostBuffer forged = buffer(4096).pattern(77);
            MrHandle mr = hostile.registerUserBuffer(forged.address, forged.size);
            int word = Immediate.encode(Immediate.TYPE_DATA, 1, Immediate.EAGER_BARE, p.recv().id(), 0);
            long data = 42L << 32 | (word & 0xffffffffL);
            while (raw.senddata(forged.address, 4096, mr.descriptor(RailKind.DATA, 0), data, target, 0)
                    != io.ofinet.fabric.Endpoint.POSTED) {
                b.progress();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (b.immediates.forged() == 0 && System.nanoTime() < deadline) {
                spin(1);
                hostile.progress();
            }
            mr.close();
        }
        assertEquals(1, b.immediates.forged(), "dropped by its source");
        assertFalse(r.done, "the forged message completed nothing");
        assertTrue(p.recv().liveness().dead == null, "the communicator is not charged");
        assertEquals(0x5A, s.dst.get(0));

        await(p.send().isend(s.src.address, 4096, 42, s.srcMr), null);
        long[] got = new long[1];
        await(r, got);
        assertEquals(4096, got[0]);
        assertArrayEquals(s.src.bytes(0, 4096), s.dst.bytes(0, 4096));
    }

    /** The receiver's checks of a bare message, from its own peer's rail. */
    @Test
    void malformedBareMessagesAreDroppedOrFailTheirCommunicatorOnly() throws Exception {
        Pair p = connect(1, 0);
        b.lock();
        try {
            long before = b.immediates.malformed();
            EagerBuffer buffer = b.pools.eager.acquire();
            int unknownForm = Immediate.encode(Immediate.TYPE_DATA, 1, 2, p.recv().id(), 0);
            assertFalse(b.immediates.eager(0, buffer, 100, unknownForm & 0xffffffffL), "not held");
            assertEquals(before + 1, b.immediates.malformed(), "an unknown form is dropped and counted");
            assertTrue(p.recv().liveness().dead == null);

            int bare = Immediate.encode(Immediate.TYPE_DATA, 1, Immediate.EAGER_BARE, p.recv().id(), 0);
            assertFalse(b.immediates.eager(0, buffer, 0, bare & 0xffffffffL), "not held");
            b.pools.eager.release(buffer);
            assertTrue(p.recv().liveness().dead != null, "an empty bare message fails the communicator it names");
            assertEquals("receive communicator " + p.recv().id() + ": a bare eager message of 0 bytes (1 to 4096)",
                    p.recv().liveness().dead.getMessage());
        } finally {
            b.unlock();
        }
    }
}
