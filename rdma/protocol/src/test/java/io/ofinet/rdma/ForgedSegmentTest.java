package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.Immediate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A data segment counts only for the connection it came from (docs/PROTOCOL.md, "What a peer can
 * forge"). Endpoints a and c are both connected to b on the in-memory provider, without sources
 * (as a remote write's on {@code tcp;ofi_rxm}); c, hostile, sends b a segment naming the live
 * receive of a's connection, whose real data a then sends. A segment its sender could not have
 * sent is dropped and counted as forged; the real receive completes with every byte right.
 */
@Timeout(60)
class ForgedSegmentTest {
    private static final int SIZE = 65536;
    /** Eager messages of up to 4 KiB: a 64 KiB buffer is announced, and written or tagged. */
    private static final String NO_SOURCES = "\"sourceCheckDisable\": true, \"eagerMaxSize\": 4096";

    private final List<Device> devices = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private RdmaEndpoint a;
    private RdmaEndpoint b;
    private RdmaEndpoint c;
    private ConnectedPair pairA;
    private ConnectedPair pairC;

    private void connectTrio(String members) throws Exception {
        MemProvider provider = MemProvider.builder().domains(1).build();
        a = endpoint(provider, members);
        c = endpoint(provider, members);
        b = endpoint(provider, members);
        ListenComm listen = b.listen();
        pairA = ConnectionTest.establish(a, b, listen);
        pairC = ConnectionTest.establish(c, b, listen);
    }

    private RdmaEndpoint endpoint(MemProvider provider, String members) throws Exception {
        Device d = Device.open(provider, Layouts.mem(1, NO_SOURCES + ", " + members));
        devices.add(d);
        return d.openEndpoint();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        for (Device d : devices) {
            d.close();
        }
    }

    private HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(size);
        resources.add(buffer);
        return buffer;
    }

    private MrHandle register(RdmaEndpoint endpoint, HostBuffer buffer) throws Exception {
        MrHandle mr = endpoint.registerUserBuffer(buffer.address, buffer.size);
        resources.add(mr::close);
        return mr;
    }

    /** The immediate data of the one segment of buffer 0 of receive {@code seq} of {@code recv}, {@code bytes} long. */
    private static long segment(RecvComm recv, int seq, long bytes) {
        return bytes << 32 | (Immediate.encode(Immediate.TYPE_DATA, 1, 0, recv.id(), seq) & 0xffffffffL);
    }

    /**
     * c writes {@code bytes} with immediate data {@code data} into a buffer of b's, as into a buffer
     * b announced to it; c's own receive at b is what it may write (the key and address would be
     * those of its announcement).
     */
    private void forgeWrite(long bytes, long data) throws Exception {
        HostBuffer junk = buffer(bytes).fill((byte) 0xEE);
        MrHandle mrC = register(c, junk);
        HostBuffer target = buffer(bytes);
        MrHandle mrB = register(b, target);
        c.lock();
        try {
            assertEquals(Endpoint.POSTED, c.railSet.dataEndpoint(0).writedata(junk.address, bytes,
                    mrC.descriptor(RailKind.DATA, 0), data, pairC.send().connection().dataPeer(0),
                    mrB.remoteAddress(RailKind.DATA, 0, 0), mrB.key(RailKind.DATA, 0), 0));
        } finally {
            c.unlock();
        }
    }

    /** c sends a zero-byte message with immediate data {@code data} to b's data rail, as a write's notice. */
    private void forgeNotice(long data) throws Exception {
        c.lock();
        try {
            assertEquals(Endpoint.POSTED, c.railSet.dataEndpoint(0).senddata(0, 0, 0, data,
                    pairC.send().connection().dataPeer(0), 0));
        } finally {
            c.unlock();
        }
    }

    /**
     * Steps b (and c) until b has counted {@code forged} forged arrivals, {@code r} never done
     * meanwhile; then a sends its {@link #SIZE} bytes into {@code r}, which completes with them.
     */
    private void forgeryDroppedAndRealDataLands(RecvRequest r, HostBuffer dst, long forged) throws Exception {
        long deadline = System.nanoTime() + Await.BOUND_NANOS;
        while (b.statistics().droppedForged() < forged) {
            assertTrue(System.nanoTime() < deadline, "the forged segment was not counted: " + b.statistics());
            c.progress();
            assertFalse(r.test(null), "a forged segment completed the receive");
        }
        HostBuffer src = buffer(SIZE).pattern(7);
        SendRequest s = pairA.send().isend(src.address, SIZE, 0, register(a, src));
        assertNotNull(s);
        long[] sizes = new long[1];
        boolean got = false;
        boolean sent = false;
        while (!got || !sent) {
            assertTrue(System.nanoTime() < deadline, "no transfer: " + b.statistics());
            got = got || r.test(sizes);
            sent = sent || s.test(null);
        }
        assertEquals(SIZE, sizes[0]);
        assertArrayEquals(src.bytes(0, SIZE), dst.bytes(0, SIZE), "the received bytes");
        EndpointStatistics stats = b.statistics();
        assertEquals(forged, stats.droppedForged(), stats.toString());
        assertEquals(0, stats.droppedMalformed(), stats.toString());
        assertEquals(forged, pairA.recv().statistics().droppedForged(), "charged to the communicator it named");
        assertEquals(0, pairC.recv().statistics().droppedForged(), "charged to the one it came through");
        assertNull(pairA.recv().liveness().dead(), "the connection it named was condemned");
    }

    private RecvRequest post(HostBuffer dst, long size) throws Exception {
        RecvRequest r = pairA.recv().irecv(1, new long[] {dst.address}, new long[] {size}, new int[] {0},
                new MrHandle[] {register(b, dst)});
        assertNotNull(r);
        return r;
    }

    /**
     * writeNotice tagged: the buffer takes one tagged message, so a segment for it is forged however
     * it comes. A write with immediate data is forged twice over (such a layout writes with notices);
     * a notice, whose source tcp would name, only by the buffer's announcement.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aSegmentForABufferAnnouncedToTakeATaggedMessageIsForged(boolean written) throws Exception {
        connectTrio("\"writeNotice\": \"tagged\"");
        HostBuffer dst = buffer(SIZE);
        RecvRequest r = post(dst, SIZE);
        long data = segment(pairA.recv(), 0, SIZE);
        if (written) {
            forgeWrite(SIZE, data);
        } else {
            forgeNotice(data);
        }
        forgeryDroppedAndRealDataLands(r, dst, 1);
        assertEquals(1, b.counts().taggedReceived(), "the real data came as the tagged message");
    }

    /**
     * writeNotice message: every write is announced by a notice message, so a write with immediate
     * data of type data is never the sender's, whatever buffer it names.
     */
    @Test
    void aWriteWithImmediateDataWhereWritesAreNoticedIsForged() throws Exception {
        connectTrio("\"writeNotice\": \"message\"");
        HostBuffer dst = buffer(SIZE);
        RecvRequest r = post(dst, SIZE);
        forgeWrite(SIZE, segment(pairA.recv(), 0, SIZE));
        forgeryDroppedAndRealDataLands(r, dst, 1);
        assertEquals(1, a.counts().writesNoticed(), "the real data was written with a notice");
    }

    /**
     * writeNotice immediate: a segment longer than its buffer contradicts the announcement and is
     * forged; it is not charged, so the real one still fits.
     */
    @Test
    void aSegmentLongerThanItsBufferIsForged() throws Exception {
        connectTrio("\"writeNotice\": \"immediate\"");
        HostBuffer dst = buffer(SIZE);
        RecvRequest r = post(dst, SIZE);
        forgeWrite(SIZE + 1, segment(pairA.recv(), 0, SIZE + 1));
        forgeryDroppedAndRealDataLands(r, dst, 1);
    }
}
