package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.FlushRequest;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Moving bytes between two connected hosts on the in-memory provider. */
@Timeout(120)
class DataTransferTest extends TwoHostFixture {
    private static final String SMALL_STRIPES = "\"minStripeSize\": 4096, \"eagerMaxSize\": 4096";

    private SendComm send;
    private RecvComm recv;

    private void connect(MemProvider memProvider, int rails, String extra) throws Exception {
        connect(memProvider, Layouts.mem(rails, extra));
    }

    private void connect(MemProvider memProvider, io.ofinet.config.DeviceSpec spec) throws Exception {
        ConnectedPair pair = openAndConnect(memProvider, spec);
        send = pair.send();
        recv = pair.recv();
    }

    private void transfer(long sendSize, long recvSize, int tag) throws Exception {
        transfer(send, recv, sendSize, recvSize, tag);
    }

    @ParameterizedTest
    @CsvSource({"1, false, immediate", "2, false, immediate", "4, false, immediate", "1, true, immediate",
        "2, true, immediate", "4, true, immediate", "1, false, message", "2, true, message", "4, false, message"})
    void sizeMatrixArrivesByteForByte(int rails, boolean endpointMr, String notice) throws Exception {
        MemProvider.Builder builder = MemProvider.builder().domains(rails).outOfOrderCompletions(rails * 31L + 1);
        connect(endpointMr ? builder.endpointMr().build() : builder.build(), rails,
                SMALL_STRIPES + ", \"writeNotice\": \"" + notice + "\"");
        long before = a.counts().writesPosted() + b.counts().writesPosted();
        long[] sizes = {0, 1, 63, 64, 4096, 4095, 4097, 8191, 8192, 8193, 12288, 12289, 16384, 16385, 1 << 20, 8 << 20};
        int tag = 0;
        for (long size : sizes) {
            transfer(size, size, tag++);
        }
        transfer(100, 4096, tag++); // a receive buffer larger than the send reports the sent size
        long noticed = a.counts().writesNoticed() + b.counts().writesNoticed();
        long immediate = a.counts().writesPosted() + b.counts().writesPosted() - before;
        assertTrue(notice.equals("message") ? noticed > 0 && immediate == 0 : noticed == 0 && immediate > 0,
                notice + ": " + noticed + " writes with notices, " + immediate + " with immediate data");
    }

    /**
     * On shm (writeNotice auto) a write of up to shm's inject size carries immediate data and a
     * longer one is announced by a notice: shm completes long writes with immediate data in order
     * across peers (docs/PROTOCOL.md, "Write notices"). The in-memory provider goes by shm's name.
     */
    @Test
    void onShmLongWritesAreAnnouncedByNotices() throws Exception {
        // Rendezvous writes only: eager messages would take the small sizes.
        connect(MemProvider.builder().named("shm").domains(2).outOfOrderCompletions(5).build(),
                Layouts.device("shm", new String[] {"mem0", "mem1"}, "\"eagerMaxSize\": 0"));
        long[] sizes = {0, 1, 4096, 4097, 8192, 1 << 20};
        long[] noticedAfter = {0, 0, 0, 1, 2, 4}; // 1 MiB goes in two stripes, one per rail
        long immediateBefore = a.counts().writesPosted();
        for (int i = 0; i < sizes.length; i++) {
            transfer(sizes[i], sizes[i], i);
            assertEquals(noticedAfter[i], a.counts().writesNoticed(), "writes announced by notices after "
                    + sizes[i] + " bytes");
        }
        assertEquals(2, a.counts().writesPosted() - immediateBefore, "writes with immediate data (1 and 4096 bytes)");
    }

    @Test
    void sequenceNumbersWrapSeveralTimes() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, SMALL_STRIPES);
        HostBuffer src = buffer(256).pattern(3);
        HostBuffer dst = buffer(256);
        MrHandle srcMr = register(a, deviceA, src);
        MrHandle dstMr = register(b, deviceB, dst);
        long[] sizes = new long[1];
        for (int i = 0; i < 3 * 1024 + 10; i++) {
            RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {256}, new int[] {i},
                    new MrHandle[] {dstMr});
            SendRequest s = send.isend(src.address, 1 + i % 256, i, srcMr);
            await(s, null);
            await(r, sizes);
            assertEquals(1 + i % 256, sizes[0]);
        }
    }

    @Test
    void manyReceivesInFlightCompleteWithTheirOwnData() throws Exception {
        connect(MemProvider.builder().domains(4).outOfOrderCompletions(5).build(), 4, SMALL_STRIPES);
        int n = RecvComm.MAX_REQUESTS;
        List<RecvRequest> recvs = new ArrayList<>();
        List<SendRequest> sends = new ArrayList<>();
        List<HostBuffer> sources = new ArrayList<>();
        List<HostBuffer> targets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            HostBuffer src = buffer(20000 + i).pattern(i);
            HostBuffer dst = buffer(20000 + i);
            sources.add(src);
            targets.add(dst);
            recvs.add(recv.irecv(1, new long[] {dst.address}, new long[] {dst.size}, new int[] {i},
                    new MrHandle[] {register(b, deviceB, dst)}));
            sends.add(send.isend(src.address, src.size, i, register(a, deviceA, src)));
        }
        HostBuffer extra = buffer(64);
        assertNull(recv.irecv(1, new long[] {extra.address}, new long[] {64}, new int[] {0},
                new MrHandle[] {register(b, deviceB, extra)}), "a 33rd receive is refused for now");
        long[] sizes = new long[1];
        for (int i = 0; i < n; i++) {
            await(sends.get(i), null);
            await(recvs.get(i), sizes);
            assertEquals(sources.get(i).size, sizes[0]);
            assertArrayEquals(sources.get(i).bytes(0, (int) sizes[0]), targets.get(i).bytes(0, (int) sizes[0]));
        }
    }

    @Test
    void groupedReceiveMatchesSendsByTag() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, SMALL_STRIPES);
        HostBuffer[] dst = {buffer(10000), buffer(10000), buffer(10000)};
        RecvRequest r = irecvGroup(recv, dst, 10000, 7, 8, 9);
        int[] tags = {9, 7, 8};
        long[] lengths = {9000, 700, 80};
        HostBuffer[] src = new HostBuffer[3];
        List<SendRequest> sends = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            src[i] = buffer(lengths[i]).pattern(tags[i]);
            sends.add(send.isend(src[i].address, lengths[i], tags[i], register(a, deviceA, src[i])));
        }
        for (SendRequest s : sends) {
            await(s, null);
        }
        long[] sizes = new long[3];
        await(r, sizes);
        assertArrayEquals(new long[] {700, 80, 9000}, sizes, "sizes by buffer: tags 7, 8, 9");
        assertArrayEquals(src[1].bytes(0, 700), dst[0].bytes(0, 700));
        assertArrayEquals(src[2].bytes(0, 80), dst[1].bytes(0, 80));
        assertArrayEquals(src[0].bytes(0, 9000), dst[2].bytes(0, 9000));
    }

    @Test
    void aSendLargerThanTheReceiveFailsOnBothSidesAndWritesNothing() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, SMALL_STRIPES);
        HostBuffer src = buffer(5120).pattern(1);
        HostBuffer dst = buffer(4096 + CANARY).fill((byte) 0x5A);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {4096}, new int[] {1},
                new MrHandle[] {register(b, deviceB, dst)});
        SendRequest s = send.isend(src.address, 5120, 1, register(a, deviceA, src));
        RdmaException sent = assertThrows(RdmaException.class, () -> await(s, null));
        assertEquals(ErrorCategory.INVALID_USAGE, sent.category());
        // The receive needed no announcement (4 KiB takes an eager message whole): the send's
        // request to send is refused by the receiver.
        assertEquals("isend: 5120 bytes (tag 1) do not fit the receive buffer they were matched with, the receiver"
                + " reports", sent.getMessage());
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, new long[1]));
        assertEquals(ErrorCategory.INVALID_USAGE, received.category());
        assertTrue(received.getMessage().contains("did not fit receive buffer 0 of 4096 bytes"), received.getMessage());
        for (long i = 0; i < dst.size; i++) {
            assertEquals(0x5A, dst.get(i), "byte " + i + " was written");
        }
        transfer(64, 64, 2); // the connection goes on
    }

    /**
     * A send whose tag no posted receive has waits for the first receive with its tag, and is not
     * refused; the receive posted first waits for its own tag's send.
     */
    @Test
    void aSendWhoseTagNoPostedReceiveHasWaitsForOne() throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, "\"eagerMaxSize\": 0");
        HostBuffer src = buffer(128).pattern(7);
        HostBuffer dst = buffer(128);
        MrHandle srcMr = register(a, deviceA, src);
        MrHandle dstMr = register(b, deviceB, dst);
        RecvRequest one = recv.irecv(1, new long[] {dst.address}, new long[] {64}, new int[] {1},
                new MrHandle[] {dstMr});
        SendRequest two = send.isend(src.address, 64, 2, srcMr);
        for (int i = 0; i < 50; i++) {
            a.progress();
            b.progress();
        }
        assertFalse(two.test(null), "the send of tag 2 waits for a receive with its tag");
        assertFalse(one.test(null), "the receive of tag 1 waits for its send");
        RecvRequest later = recv.irecv(1, new long[] {dst.address + 64}, new long[] {64}, new int[] {2},
                new MrHandle[] {dstMr});
        await(two, null);
        long[] got = new long[1];
        await(later, got);
        assertEquals(64, got[0]);
        assertArrayEquals(src.bytes(0, 64), dst.bytes(64, 64));
        await(send.isend(src.address + 64, 64, 1, srcMr), null);
        await(one, got);
        assertArrayEquals(src.bytes(64, 64), dst.bytes(0, 64));
    }

    /**
     * A write that fails at the sender with the peer alive (here FI_EIO, nothing delivered) fails the
     * send with libfabric's error, and the receive it was for hears of it at once: keepalives would
     * otherwise keep it waiting for data that never comes. Where the provider fails that error too
     * (as rxm fails what a reset connection carried), it is owed and goes at the sender's next look
     * at its stalls: it was lost, and the receive waited until its sender fell silent.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anInjectedCompletionErrorFailsTheSendWithTheLibfabricErrorAndItsReceive(boolean errorFails)
            throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, "\"eagerMaxSize\": 0, \"peerTimeoutMs\": 60000");
        HostBuffer src = buffer(64);
        HostBuffer dst = buffer(64);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {64}, new int[] {1},
                new MrHandle[] {register(b, deviceB, dst)});
        // Let the announcement arrive, then fail the data write.
        for (int i = 0; i < 10; i++) {
            a.progress();
            b.progress();
        }
        provider.faults().failNextCompletions(a.railSet.dataEndpoint(0), MemFaults.Ops.WRITES, 1, FiErrno.FI_EIO);
        if (errorFails) {
            provider.faults().failNextCompletions(a.railSet.controlEndpoint(0), MemFaults.Ops.SENDS, 1,
                    FiErrno.FI_ECANCELED);
        }
        SendRequest s = send.isend(src.address, 64, 1, register(a, deviceA, src));
        RdmaException e = assertThrows(RdmaException.class, () -> await(s, null));
        assertTrue(e.getMessage().contains("write on data rail 0 failed: FI_EIO"), e.getMessage());
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, null));
        assertTrue(received.getMessage().contains("the sender's writes into buffer 0 did not complete"),
                received.getMessage());
    }

    /**
     * A striped send whose write on rail 0 fails tells its receiver only once its write on rail 1
     * has ended: when the receive reports the failure, that stripe has landed, and nothing more
     * comes into the buffer the application may now reuse.
     */
    @Test
    void aFailedStripeIsToldOnlyOnceTheSendsOtherStripesHaveLanded() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, SMALL_STRIPES);
        HostBuffer src = buffer(65536).pattern(4);
        HostBuffer dst = buffer(65536);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {65536}, new int[] {1},
                new MrHandle[] {register(b, deviceB, dst)});
        for (int i = 0; i < 10; i++) {
            a.progress();
            b.progress();
        }
        provider.faults().failNextCompletions(a.railSet.dataEndpoint(0), MemFaults.Ops.WRITES, 1, FiErrno.FI_EIO);
        SendRequest s = send.isend(src.address, 65536, 1, register(a, deviceA, src));
        // The sender sees rail 0's failure; rail 1's write completes only once the receiver takes it,
        // which the watchdog's step of b would do, were b not held.
        b.lock();
        try {
            for (int i = 0; i < 50; i++) {
                a.progress();
            }
            assertFalse(s.test(null), "rail 1's write is still in flight");
        } finally {
            b.unlock();
        }
        for (int i = 0; i < 50; i++) {
            assertFalse(r.test(null), "the receiver is told nothing while the sender's other stripe is in flight");
        }
        RdmaException e = assertThrows(RdmaException.class, () -> await(s, null));
        assertTrue(e.getMessage().contains("FI_EIO"), e.getMessage());
        RdmaException received = assertThrows(RdmaException.class, () -> await(r, null));
        assertTrue(received.getMessage().contains("the sender's writes into buffer 0 did not complete"),
                received.getMessage());
        assertArrayEquals(src.bytes(32768, 32768), dst.bytes(32768, 32768), "rail 1's stripe landed before");
    }

    @Test
    void writesToAVanishedPeerFailWithARemoteError() throws Exception {
        connect(MemProvider.builder().domains(2).build(), 2, SMALL_STRIPES);
        HostBuffer src = buffer(65536);
        HostBuffer dst = buffer(65536);
        recv.irecv(1, new long[] {dst.address}, new long[] {65536}, new int[] {1},
                new MrHandle[] {register(b, deviceB, dst)});
        for (int i = 0; i < 10; i++) {
            a.progress();
            b.progress();
        }
        provider.faults().vanish(b.railSet.dataEndpoint(0));
        provider.faults().vanish(b.railSet.dataEndpoint(1));
        SendRequest s = send.isend(src.address, 65536, 1, register(a, deviceA, src));
        RdmaException e = assertThrows(RdmaException.class, () -> await(s, null));
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().contains("FI_EHOSTUNREACH"), e.getMessage());
    }

    @Test
    void arraysShorterThanTheBufferCountAreRefusedBeforeAnythingIsTaken() throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, "");
        HostBuffer dst = buffer(64);
        MrHandle dstMr = register(b, deviceB, dst);
        RdmaException shortTags = assertThrows(RdmaException.class, () -> recv.irecv(2,
                new long[] {dst.address, dst.address + 32}, new long[] {32, 32}, new int[] {1},
                new MrHandle[] {dstMr, dstMr}));
        assertEquals(ErrorCategory.INVALID_ARGUMENT, shortTags.category());
        assertEquals("irecv: 2 buffers, but 1 tags", shortTags.getMessage());
        RdmaException shortAddresses = assertThrows(RdmaException.class, () -> recv.iflush(2,
                new long[] {dst.address}, new long[] {64, 64}, new MrHandle[] {dstMr, dstMr}));
        assertEquals(ErrorCategory.INVALID_ARGUMENT, shortAddresses.category());
        assertEquals("iflush: 2 buffers, but 1 addresses", shortAddresses.getMessage());
        assertEquals(0, recv.outstanding(), "no receive was taken");
        transferInto(dst, dstMr, 64);
    }

    @Test
    void flushReadsTheReceivedBufferOnEveryRail() throws Exception {
        connect(MemProvider.builder().domains(2).endpointMr().build(), 2, SMALL_STRIPES);
        HostBuffer dst = buffer(4096);
        MrHandle dstMr = register(b, deviceB, dst);
        transferInto(dst, dstMr, 4096);
        NativeMemory.fill(b.flushBuffer().address(), 8, (byte) 0);
        FlushRequest f = recv.iflush(1, new long[] {dst.address}, new long[] {4096}, new MrHandle[] {dstMr});
        await(f, null);
        byte[] flushed = new byte[8];
        NativeMemory.read(b.flushBuffer().address(), flushed, 0, 8);
        assertArrayEquals(dst.bytes(0, 8), flushed, "the flush read the received bytes into the flush buffer");
    }

    private void transferInto(HostBuffer dst, MrHandle dstMr, int size) throws Exception {
        HostBuffer src = buffer(size).pattern(77);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {size}, new int[] {0}, new MrHandle[] {dstMr});
        SendRequest s = send.isend(src.address, size, 0, register(a, deviceA, src));
        await(s, null);
        await(r, null);
    }

    @Test
    void sendsBeyondTheCapacityAreRefusedForNowAndClosingWithRequestsInFlightIsSafe() throws Exception {
        connect(MemProvider.builder().domains(1).build(), 1, "");
        HostBuffer src = buffer(64);
        MrHandle srcMr = register(a, deviceA, src);
        for (int i = 0; i < SendComm.MAX_REQUESTS; i++) {
            assertNotNull(send.isend(src.address, 64, i, srcMr), "send " + i);
        }
        assertNull(send.isend(src.address, 64, 0, srcMr), "send 257 is refused for now");
        HostBuffer dst = buffer(64);
        MrHandle dstMr = register(b, deviceB, dst);
        for (int i = 0; i < 5; i++) {
            assertNotNull(recv.irecv(1, new long[] {dst.address}, new long[] {64}, new int[] {i}, new MrHandle[] {dstMr}));
        }
        send.close();
        recv.close();
        send.close();
        assertThrows(RdmaException.class, () -> send.isend(src.address, 64, 0, srcMr));
        // Registrations and endpoints then close in order (checked by the devices closing in @AfterEach).
    }

    /** The sender keeps the receiver's announcements in the same window type the receiver uses, and checks them. */
    @Test
    void anAnnouncementTwiceIsAProtocolError() throws Exception {
        connect(MemProvider.create(), 1, "\"eagerMaxSize\": 0");
        HostBuffer dst = buffer(64);
        MrHandle mr = register(b, deviceB, dst);
        recv.irecv(1, new long[] {dst.address}, new long[] {64}, new int[] {0}, new MrHandle[] {mr});
        for (int i = 0; i < 20; i++) {
            a.progress(); // the announcement of receive 0 arrives at the sender
        }
        a.lock();
        try {
            RdmaException twice = assertThrows(RdmaException.class, () -> send.announcementWritten(0));
            assertEquals(ErrorCategory.REMOTE, twice.category());
            assertEquals("announcement 0 arrived twice", twice.getMessage());
        } finally {
            a.unlock();
        }
    }
}
