package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import io.ofinet.plugin.NetResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NetPlugin API end to end, two plugin instances ("hosts") on one in-memory network. What it
 * refuses is in {@link PluginRefusalTest}.
 */
@Timeout(60)
class PluginApiTest extends PluginFixture {
    @Test
    void propertiesDescribeTheDevice() throws Exception {
        assertEquals("ofinet", a.name());
        assertEquals(1, a.devices());
        DeviceProperties p = a.getProperties(0);
        assertEquals("test", p.name());
        assertEquals(MemoryType.HOST.bit(), p.ptrSupport());
        assertTrue(p.regIsGlobal());
        assertEquals(8, p.maxRecvs());
        assertEquals(8192, p.maxComms());
        assertEquals(0xFFFFFFFFL, p.maxP2pBytes());
        assertEquals(2 * PluginDevices.FALLBACK_SPEED_MBPS, p.speedMbps(), "two rails at the fallback speed");
        assertEquals(NetResult.INVALID_ARGUMENT, assertThrows(NetException.class, () -> a.getProperties(1)).result());
    }

    @Test
    void sendAndReceiveWithDirectByteBuffersAndLargerReceiveBuffers() throws Exception {
        connectPair();
        assertTrue(listen.handle().length <= NetPlugin.HANDLE_MAX_BYTES);
        ByteBuffer out = ByteBuffer.allocateDirect(100);
        for (int i = 0; i < 100; i++) {
            out.put((byte) i);
        }
        out.flip();
        ByteBuffer in = ByteBuffer.allocateDirect(4096);
        Handles.MrHandle outMr = a.regMr(send, out);
        Handles.MrHandle inMr = b.regMr(recv, in);
        long inAddress = io.ofinet.fabric.ofi.NativeMemory.addressOf(in);
        Handles.Request r = b.irecv(recv, in, 5, inMr);
        Handles.Request s = a.isend(send, out, 5, outMr);
        long[] sizes = new long[1];
        assertEquals(100, both(s, r, sizes), "a larger receive buffer reports the sent size");
        for (int i = 0; i < 100; i++) {
            assertEquals((byte) i, in.get(i));
        }
        Handles.Request f = b.iflush(recv, 1, new long[] {inAddress}, new long[] {100}, new Handles.MrHandle[] {inMr});
        assertNotNull(f);
        while (!b.test(f, null)) {
            Thread.onSpinWait();
        }
        a.deregMr(send, outMr);
        b.deregMr(recv, inMr);
    }

    /**
     * A communicator remembers the address of the buffer it posted last: buffers posted in turn,
     * slices of one buffer (other objects over the same memory) and one buffer at other positions
     * each land where they should.
     */
    @Test
    void byteBufferPostsFindEachBuffersAddress() throws Exception {
        connectPair();
        ByteBuffer out = ByteBuffer.allocateDirect(4096);
        ByteBuffer in = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < 4096; i++) {
            out.put(i, (byte) (i * 7 + 3));
        }
        Handles.MrHandle outMr = a.regMr(send, out);
        Handles.MrHandle inMr = b.regMr(recv, in);
        ByteBuffer[] sources = {out.slice(0, 64), out.slice(1000, 64), out, out.slice(1000, 64), out.slice(0, 64)};
        int[] sourceOffsets = {0, 1000, 500, 1000, 0};
        for (int k = 0; k < 20; k++) {
            int m = k % sources.length;
            ByteBuffer src = sources[m];
            if (src == out) {
                out.clear().position(500 + k).limit(500 + k + 64);
            }
            int from = sourceOffsets[m] + (src == out ? k : 0);
            int to = 64 * (k % 8);
            in.clear().position(to).limit(to + 64);
            Handles.Request r = b.irecv(recv, in, k, inMr);
            Handles.Request s = a.isend(send, src, k, outMr);
            assertEquals(64, both(s, r, new long[1]));
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) ((from + i) * 7 + 3), in.get(to + i), "message " + k + " byte " + i);
            }
        }
        a.deregMr(send, outMr);
        b.deregMr(recv, inMr);
    }

    @Test
    void groupedReceivesReportEachBuffersSize() throws Exception {
        connectPair();
        HostBuffer dst = buffer(30000);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        HostBuffer src = buffer(10000).pattern(3);
        Handles.MrHandle srcMr = a.regMr(send, src.address, src.size, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 3, new long[] {dst.address, dst.address + 10000, dst.address + 20000},
                new long[] {10000, 10000, 10000}, new int[] {7, 8, 9}, new Handles.MrHandle[] {dstMr, dstMr, dstMr});
        List<Handles.Request> sends = new ArrayList<>();
        sends.add(a.isend(send, src.address, 9000, 9, srcMr));
        sends.add(a.isend(send, src.address, 700, 7, srcMr));
        sends.add(a.isend(send, src.address, 80, 8, srcMr));
        long[] sizes = new long[3];
        // Drive both sides: on the in-memory provider nothing reaches a side that does not poll.
        both(sends.get(0), r, sizes);
        both(sends.get(1), null, null);
        both(sends.get(2), null, null);
        assertArrayEquals(new long[] {700, 80, 9000}, sizes);
    }

    @Test
    void aZeroByteRegistrationServesZeroByteMessages() throws Exception {
        connectPair();
        HostBuffer src = buffer(8);
        HostBuffer dst = buffer(8);
        Handles.MrHandle srcMr = a.regMr(send, src.address, 0, MemoryType.HOST);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, 0, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {0}, new int[] {5},
                new Handles.MrHandle[] {dstMr});
        Handles.Request s = a.isend(send, src.address, 0, 5, srcMr);
        long[] sizes = {-1};
        assertEquals(0, both(s, r, sizes));
        a.deregMr(send, srcMr);
        b.deregMr(recv, dstMr);
        assertEquals(1L, a.statistics(0).get("messagesSent"));
        assertEquals(0L, a.statistics(0).get("bytesSent"));
        assertEquals(1L, b.statistics(0).get("messagesReceived"));
        assertEquals(0L, b.statistics(0).get("droppedMalformed"));
        assertEquals(java.util.Map.of("messages", 1L, "bytes", 0L, "droppedForged", 0L, "droppedMalformed", 0L,
                "refusedAfterDone", 0L),
                a.statistics(send));
        assertEquals(1L, b.statistics(recv).get("messages"));
        NetException foreign = assertThrows(NetException.class, () -> a.statistics(recv));
        assertEquals("statistics: a communicator that this plugin did not make", foreign.getMessage());
    }

    @Test
    void oneListenCommunicatorServesThreeConnectionsAndClosingWithRequestsInFlightIsSafe() throws Exception {
        listen = b.listen(0);
        for (int round = 0; round < 3; round++) {
            Pair pair = connect(listen);
            send = pair.send();
            recv = pair.recv();
            assertNotNull(recv);
            HostBuffer src = buffer(1 << 20).pattern(round);
            HostBuffer dst = buffer(1 << 20);
            Handles.MrHandle srcMr = a.regMr(send, src.address, src.size, MemoryType.HOST);
            Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
            if (round < 2) {
                // 32 receives and 32 sends of 1 MiB in flight, then close both sides.
                for (int i = 0; i < 32; i++) {
                    assertNotNull(b.irecv(recv, 1, new long[] {dst.address}, new long[] {1 << 20}, new int[] {i},
                            new Handles.MrHandle[] {dstMr}));
                    assertNotNull(a.isend(send, src.address, 1 << 20, i, srcMr));
                }
            } else {
                Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {1 << 20}, new int[] {0},
                        new Handles.MrHandle[] {dstMr});
                Handles.Request s = a.isend(send, src.address, 1 << 20, 0, srcMr);
                assertEquals(1 << 20, both(s, r, new long[1]), "the third connection moves data");
                assertArrayEquals(src.bytes(0, 1 << 20), dst.bytes(0, 1 << 20));
            }
            if (round < 2) {
                assertThrows(NetException.class, () -> a.deregMr(send, srcMr), "in use by the 32 sends");
            }
            a.closeSend(send);
            b.closeRecv(recv);
            // The requests ended with their communicators; the closed communicators still serve deregMr.
            a.deregMr(send, srcMr);
            b.deregMr(recv, dstMr);
        }
        b.closeListen(listen);
    }

    /**
     * "Call again with the same handle" from another thread: the connect goes on where it began, so
     * that accept returns the connection the caller gets, and no second one waits behind it.
     */
    @Test
    void aConnectCalledAgainFromAnotherThreadGoesOnWhereItBegan() throws Exception {
        Handles.ListenComm listen = listenWithConnectUnderWay(a);
        byte[] handle = listen.handle();
        Handles.SendComm[] send = new Handles.SendComm[1];
        Throwable[] thrown = new Throwable[1];
        long deadline = deadline();
        Thread again = new Thread(() -> {
            try {
                while (send[0] == null && System.nanoTime() - deadline < 0) {
                    send[0] = a.connect(0, handle, ConnectConfig.DEFAULT);
                }
            } catch (Throwable t) {
                thrown[0] = t;
            }
        });
        again.start();
        Handles.RecvComm recv = null;
        while (recv == null && thrown[0] == null && System.nanoTime() - deadline < 0) {
            recv = b.accept(listen);
        }
        again.join();
        assertNull(thrown[0], () -> "the connect called again threw: " + thrown[0]);
        assertNotNull(send[0], "connected");
        assertNotNull(recv, "accepted");
        HostBuffer src = buffer(256).pattern(8);
        HostBuffer dst = buffer(256);
        Handles.MrHandle srcMr = a.regMr(send[0], src.address, src.size, MemoryType.HOST);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {256}, new int[] {5},
                new Handles.MrHandle[] {dstMr});
        Handles.Request s = a.isend(send[0], src.address, 256, 5, srcMr);
        assertEquals(256, both(s, r, new long[1]), "the connection the caller got is the one accepted");
        assertArrayEquals(src.bytes(0, 256), dst.bytes(0, 256));
        // A second connection begun on the main thread's endpoint would complete as the watchdog
        // steps that endpoint, left idle (every 200 ms): none comes.
        for (long end = System.nanoTime() + 1_500_000_000L; System.nanoTime() - end < 0; Thread.sleep(10)) {
            assertNull(b.accept(listen), "no second connection waits to be accepted");
        }
    }

    /**
     * Threads that connect with one handle at once: each gets a connection of its own, and the
     * listener accepts exactly those. None that one thread began is left to the listener alone
     * because another thread began one too. A listener for each round: a connection left behind
     * in one round would otherwise be taken by the next round's connect with the same handle.
     */
    @Test
    void threadsConnectingWithOneHandleAtOnceLeaveNoConnectionBehind() throws Exception {
        int threads = 4;
        int rounds = 25;
        List<Handles.ListenComm> listens = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            listens.add(b.listen(0));
        }
        Set<Handles.SendComm> sends = ConcurrentHashMap.newKeySet();
        Queue<Throwable> thrown = new ConcurrentLinkedQueue<>();
        CyclicBarrier together = new CyclicBarrier(threads);
        long deadline = System.nanoTime() + TestTime.nanos(40_000);
        List<Thread> connectors = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread connector = new Thread(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        together.await(TestTime.nanos(30_000), TimeUnit.NANOSECONDS);
                        Handles.SendComm send = null;
                        while (send == null && System.nanoTime() - deadline < 0) {
                            send = a.connect(0, listens.get(round).handle(), ConnectConfig.DEFAULT);
                        }
                        assertNotNull(send, "connected in time");
                        sends.add(send);
                    }
                } catch (Throwable e) {
                    thrown.add(e);
                    together.reset();
                }
            }, "connector" + t);
            connector.start();
            connectors.add(connector);
        }
        int accepted = 0;
        while (connectors.stream().anyMatch(Thread::isAlive) && System.nanoTime() - deadline < 0) {
            accepted += acceptEach(listens);
        }
        for (Thread connector : connectors) {
            connector.join(TestTime.ms(40_000));
        }
        assertTrue(thrown.isEmpty(), () -> "a connector threw: " + thrown);
        // A connection begun on an idle endpoint completes as the watchdog steps it (every 200 ms):
        // accept until each connect's own is in, then a few watchdog steps more for any left behind.
        long end = System.nanoTime() + TestTime.nanos(40_000);
        while (accepted < threads * rounds && System.nanoTime() - end < 0) {
            accepted += acceptEach(listens);
        }
        for (long extra = System.nanoTime() + TestTime.nanos(1_000); System.nanoTime() - extra < 0; ) {
            accepted += acceptEach(listens);
        }
        assertEquals(threads * rounds, sends.size(), "each connect returned a communicator of its own");
        assertEquals(threads * rounds, accepted, "the listeners accepted those connections, and no other");
    }

    /** Calls accept once on each of {@code listens}; returns how many returned a connection. */
    private int acceptEach(List<Handles.ListenComm> listens) throws NetException {
        int accepted = 0;
        for (Handles.ListenComm listen : listens) {
            accepted += b.accept(listen) == null ? 0 : 1;
        }
        return accepted;
    }

    @Test
    void serviceLoaderFindsThePluginByName() throws Exception {
        assertTrue(NetPlugins.available().contains("ofinet"), NetPlugins.available().toString());
        assertTrue(NetPlugins.load("ofinet") instanceof OfiNetPlugin);
        NetException unknown = assertThrows(NetException.class, () -> NetPlugins.load("nccl-ib"));
        assertEquals(NetResult.INVALID_USAGE, unknown.result());
        assertTrue(unknown.getMessage().startsWith(
                "no network plugin named \"nccl-ib\" on the class path; found [ofinet]"),
                unknown.getMessage());
    }
}
