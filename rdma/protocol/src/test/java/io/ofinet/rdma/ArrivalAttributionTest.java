package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.rdma.comm.CommStatistics;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Arrivals that break a rule or come from the wrong peer, at an endpoint with two connections on
 * the in-memory provider: each is charged to the communicator it can be traced to, or to none.
 */
@Timeout(30)
class ArrivalAttributionTest {
    private final List<Device> devices = new ArrayList<>();
    private MemProvider provider;

    private RdmaEndpoint endpoint() throws Exception {
        Device d = Device.open(provider, Layouts.mem(1, ""));
        devices.add(d);
        return d.openEndpoint();
    }

    @AfterEach
    void closeDevices() throws Exception {
        // Closing succeeds only if every registration, endpoint and queue was released in order.
        for (Device d : devices) {
            d.close();
            d.close();
        }
    }

    /** Immediate data as a peer would send it: the word, and the upper half of 8-byte CQ data. */
    private static long arrival(int type, int segments, int index, int comm, int seq, long upper) {
        return upper << 32 | (io.ofinet.rdma.wire.Immediate.encode(type, segments, index, comm, seq) & 0xffffffffL);
    }

    /**
     * A zero-byte arrival with CQ data {@code data} on engine rail {@code rail} of {@code endpoint},
     * handed to it holding the endpoint, as a step does.
     */
    private static void arrive(RdmaEndpoint endpoint, int rail, long data) {
        endpoint.lock();
        try {
            endpoint.immediates.remoteData(rail, 0, 0, data);
        } finally {
            endpoint.unlock();
        }
    }

    /** Endpoints a and c, each connected to endpoint b, on one in-memory rail: {send, recv} each. */
    private RdmaEndpoint a;
    private RdmaEndpoint b;
    private RdmaEndpoint c;
    private ConnectedPair pairA;
    private ConnectedPair pairC;

    @BeforeEach
    void connectTrio() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        a = endpoint();
        c = endpoint();
        b = endpoint();
        ListenComm listen = b.listen();
        pairA = ConnectionTest.establish(a, b, listen);
        pairC = ConnectionTest.establish(c, b, listen);
    }

    @Test
    void arrivalsThatBreakARuleFailOnlyTheCommunicatorTheyCanBeTracedTo() throws Exception {
        RecvComm fromA = pairA.recv();
        SendComm toBFromA = pairA.send();
        int data = io.ofinet.rdma.wire.Immediate.TYPE_DATA;
        int error = io.ofinet.rdma.wire.Immediate.TYPE_ERROR;
        int signal = io.ofinet.rdma.wire.Immediate.TYPE_SIGNAL;
        long wrongToken = ~fromA.token() & 0xffffffffL;
        b.lock();
        try {
            // 16 segments on a device of one data rail: names nothing that can be trusted.
            b.immediates.remoteData(0, 0, 0, arrival(data, 16, 0, fromA.id(), 0, 0) & 0xffffffffL);
            assertEquals(1, b.immediates.malformed());
            // A segment for a communicator that does not exist: dropped and counted.
            b.immediates.remoteData(0, 0, 64, arrival(data, 1, 0, 4000, 0, 64));
            // A segment for a receive fromA never posted: a segment carries its length where a token
            // would go, so its sender cannot be told; dropped and counted, not charged to fromA.
            b.immediates.remoteData(0, 0, 64, arrival(data, 1, 0, fromA.id(), 0, 64));
            // An error, a close signal and a keepalive naming fromA without its token: not from its peer.
            b.immediates.remoteData(0, 0, 0, arrival(error, 1, 0, fromA.id(), 0, wrongToken));
            b.immediates.remoteData(0, 0, 0, arrival(signal, 1, io.ofinet.rdma.wire.Signal.SENDER_CLOSED.code(),
                    fromA.id(), 0, wrongToken));
            b.immediates.remoteData(0, 0, 0, arrival(signal, 1, io.ofinet.rdma.wire.Signal.KEEPALIVE_TO_RECEIVER.code(),
                    fromA.id(), 0, wrongToken));
        } finally {
            b.unlock();
        }
        b.progress(); // nothing is thrown out of progress
        assertFalse(fromA.senderSaidClosed(), "a forged close signal closed the connection");
        try (io.ofinet.fabric.testing.HostBuffer buf = new io.ofinet.fabric.testing.HostBuffer(4096)) {
            io.ofinet.mr.MrHandle mrB = b.registerUserBuffer(buf.address, 2048);
            io.ofinet.mr.MrHandle mrA = a.registerUserBuffer(buf.address + 2048, 1024);
            // fromA still works: the forged and unattributable arrivals were charged to nobody.
            transfer(fromA, toBFromA, buf.address, mrB, buf.address + 2048, mrA);
            // A refusal with fromA's token for a receive never posted: fromA's peer broke the protocol.
            arrive(b, 0, arrival(error, 1, 0, fromA.id(), 9, fromA.token() & 0xffffffffL));
            RdmaException e = assertThrows(RdmaException.class, () -> fromA.irecv(1, new long[] {buf.address},
                    new long[] {64}, new int[] {0}, new io.ofinet.mr.MrHandle[] {mrB}));
            assertEquals(ErrorCategory.REMOTE, e.category());
            assertTrue(e.getMessage().startsWith("receive communicator " + fromA.id() + ": "), e.getMessage());
            // The other connection on the endpoint is untouched.
            io.ofinet.mr.MrHandle mrC = c.registerUserBuffer(buf.address + 3072, 1024);
            transfer(pairC.recv(), pairC.send(), buf.address, mrB, buf.address + 3072, mrC);
            EndpointStatistics stats = b.statistics();
            assertEquals(2, stats.droppedMalformed(), stats.toString());
            assertEquals(1, stats.droppedUnknownComm(), stats.toString());
            assertEquals(3, stats.droppedForged(), stats.toString());
            assertEquals(new CommStatistics(1, 64, 3, 1, 0), fromA.statistics(), "what was dropped in fromA's name");
            assertEquals(2, stats.messagesReceived(), stats.toString());
            assertEquals(128, stats.bytesReceived(), stats.toString());
            assertEquals(1, c.statistics().messagesSent());
            assertEquals(64, c.statistics().bytesSent());
            mrC.close();
            mrA.close();
            mrB.close();
        }
    }

    @Test
    void anAnnouncementThatBreaksARuleFailsItsSendCommunicatorAndOnlyIt() throws Exception {
        SendComm toBFromA = pairA.send();
        // With its token, for receive 600, whose mailbox slot holds no announcement: malformed.
        arrive(a, 1, arrival(io.ofinet.rdma.wire.Immediate.TYPE_ANNOUNCEMENT, 1, 0, toBFromA.id(), 600,
                toBFromA.token() & 0xffffffffL));
        try (io.ofinet.fabric.testing.HostBuffer buf = new io.ofinet.fabric.testing.HostBuffer(4096)) {
            io.ofinet.mr.MrHandle mrA = a.registerUserBuffer(buf.address, 1024);
            RdmaException e = assertThrows(RdmaException.class, () -> toBFromA.isend(buf.address, 64, 0, mrA));
            assertEquals(ErrorCategory.REMOTE, e.category());
            assertTrue(e.getMessage().startsWith("send communicator " + toBFromA.id() + ": malformed announcement"),
                    e.getMessage());
            io.ofinet.mr.MrHandle mrB = b.registerUserBuffer(buf.address + 2048, 1024);
            io.ofinet.mr.MrHandle mrC = c.registerUserBuffer(buf.address + 3072, 1024);
            transfer(pairC.recv(), pairC.send(), buf.address + 2048, mrB, buf.address + 3072, mrC);
            mrC.close();
            mrB.close();
            mrA.close();
        }
    }

    @Test
    void anAnnouncementThatBreaksARuleBeforeItsAcceptFailsTheConnect() throws Exception {
        RdmaEndpoint d = endpoint();
        ListenComm listen = b.listen();
        assertEquals(null, d.connect(listen.handle()));
        SendComm connecting = d.comms.send(0); // d's only communicator, its ACCEPT not read yet
        arrive(d, 1, arrival(io.ofinet.rdma.wire.Immediate.TYPE_ANNOUNCEMENT, 1, 0, connecting.id(), 600,
                connecting.token() & 0xffffffffL));
        RdmaException e = assertThrows(RdmaException.class, () -> {
            while (d.connect(listen.handle()) == null) {
                b.accept(listen);
            }
        });
        assertTrue(e.getMessage().contains("malformed announcement"), e.getMessage());
    }

    @Test
    void aRefusalForAReceiveCommunicatorThatClosedIsALateWordNotADrop() throws Exception {
        RecvComm fromA = pairA.recv();
        int id = fromA.id();
        long token = fromA.token() & 0xffffffffL;
        fromA.close();
        long unknown = b.statistics().droppedUnknownComm();
        long late = b.statistics().lateForClosedComm();
        int error = io.ofinet.rdma.wire.Immediate.TYPE_ERROR;
        arrive(b, 0, arrival(error, 1, 0, id, 0, token));
        arrive(b, 0, arrival(error, 1, 0, id, 0, ~token & 0xffffffffL));
        assertEquals(late + 1, b.statistics().lateForClosedComm(), "with the closed communicator's token");
        assertEquals(unknown + 1, b.statistics().droppedUnknownComm(), "with another token");
    }

    @Test
    void aDataSegmentFromAnotherPeerIsDroppedWhereTheProviderNamesSources() throws Exception {
        RecvComm fromA = pairA.recv();
        try (io.ofinet.fabric.testing.HostBuffer buf = new io.ofinet.fabric.testing.HostBuffer(4096)) {
            io.ofinet.mr.MrHandle mrB = b.registerUserBuffer(buf.address, 2048);
            io.ofinet.mr.MrHandle mrA = a.registerUserBuffer(buf.address + 2048, 1024);
            RecvRequest r = fromA.irecv(1, new long[] {buf.address}, new long[] {64}, new int[] {0},
                    new io.ofinet.mr.MrHandle[] {mrB});
            // c, connected to b too, announces receive 0 of fromA as done with a zero-byte segment,
            // as a zero-byte send would: its sender is c, and the provider says so.
            io.ofinet.fabric.Endpoint raw = c.railSet.controlEndpoint(0);
            long target = c.railSet.av(1).insert(b.railSet.controlEndpoint(0).name());
            assertEquals(io.ofinet.fabric.Endpoint.POSTED, raw.senddata(0, 0, 0,
                    arrival(io.ofinet.rdma.wire.Immediate.TYPE_DATA, 1, 0, fromA.id(), 0, 0), target, 0));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (b.statistics().droppedForged() == 0) {
                assertTrue(System.nanoTime() < deadline, "the forged segment was not counted");
                c.progress();
                assertFalse(r.test(null), "a segment from another peer completed the receive");
            }
            // The real send completes it, with its data.
            NativeMemoryPattern.fill(buf.address + 2048, 64);
            SendRequest s = pairA.send().isend(buf.address + 2048, 64, 0, mrA);
            long[] sizes = new long[1];
            boolean got = false;
            boolean sent = false;
            while (!got || !sent) {
                assertTrue(System.nanoTime() < deadline + 5_000_000_000L, "no transfer");
                got = got || r.test(sizes);
                sent = sent || s.test(null);
            }
            assertEquals(64, sizes[0]);
            assertArrayEquals(buf.bytes(2048, 64), buf.bytes(0, 64));
            mrA.close();
            mrB.close();
        }
    }

    /**
     * A receive of a buffer larger than eagerMaxSize announces itself unless its message is held
     * already. When that message went eagerly and its sender closed before the announcement
     * arrived, the announcement finds a closed communicator: a normal close, so it is dropped and
     * counted without a warning.
     */
    @Test
    void anAnnouncementThatArrivesAfterItsSenderClosedIsDroppedWithoutAWarning() throws Exception {
        SendComm send = pairA.send();
        RecvComm recv = pairA.recv();
        // The watchdog thread may take a step too.
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(ImmediateDispatcher.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try (io.ofinet.fabric.testing.HostBuffer buf = new io.ofinet.fabric.testing.HostBuffer(1 << 17)) {
            io.ofinet.mr.MrHandle mrA = a.registerUserBuffer(buf.address, 64);
            io.ofinet.mr.MrHandle mrB = b.registerUserBuffer(buf.address + 65536, 65536);
            NativeMemoryPattern.fill(buf.address, 64);
            SendRequest s = send.isend(buf.address, 64, 0, mrA);
            long deadline = System.nanoTime() + 10_000_000_000L;
            Await.done(s, null, "the eager send");
            send.close();
            // Posted before b has read anything: the message is not held yet, so it announces.
            RecvRequest r = recv.irecv(1, new long[] {buf.address + 65536}, new long[] {65536}, new int[] {0},
                    new io.ofinet.mr.MrHandle[] {mrB});
            long[] sizes = new long[1];
            Await.done(r, sizes, "the message");
            assertEquals(64, sizes[0]);
            assertArrayEquals(buf.bytes(0, 64), buf.bytes(65536, 64));
            while (a.statistics().lateForClosedComm() == 0) {
                assertTrue(System.nanoTime() < deadline, "the announcement did not reach the closed communicator");
                a.progress();
            }
            assertEquals(0, a.statistics().droppedUnknownComm(), "a late word for a closed communicator is no drop");
            assertEquals(List.of(), warnings.stream().map(LogRecord::getMessage).toList());
            // One for a communicator that never was is still worth a warning.
            arrive(a, 1, arrival(io.ofinet.rdma.wire.Immediate.TYPE_ANNOUNCEMENT, 1, 0, 4000, 0, 0));
            assertEquals(List.of("dropping an announcement for send communicator {0}, which is not open"),
                    warnings.stream().map(LogRecord::getMessage).toList());
            mrA.close();
            mrB.close();
        } finally {
            log.removeHandler(handler);
        }
    }

    /** Fills test memory with a recognisable pattern. */
    private static final class NativeMemoryPattern {
        static void fill(long address, int n) {
            for (int i = 0; i < n; i++) {
                io.ofinet.fabric.ofi.NativeMemory.putByte(address + i, (byte) (i * 13 + 5));
            }
        }
    }

    /** 64 bytes from {@code srcAddress} through {@code send} into {@code dstAddress} through {@code recv}. */
    private static void transfer(RecvComm recv, SendComm send, long dstAddress, io.ofinet.mr.MrHandle dstMr,
            long srcAddress, io.ofinet.mr.MrHandle srcMr) throws Exception {
        RecvRequest r = recv.irecv(1, new long[] {dstAddress}, new long[] {64}, new int[] {0},
                new io.ofinet.mr.MrHandle[] {dstMr});
        SendRequest s = send.isend(srcAddress, 64, 0, srcMr);
        long[] sizes = new long[1];
        boolean sent = false;
        boolean got = false;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!got || !sent) {
            assertTrue(System.nanoTime() < deadline, "no transfer within 10 s");
            got = got || r.test(sizes);
            sent = sent || s.test(null);
        }
        assertEquals(64, sizes[0]);
    }
}
