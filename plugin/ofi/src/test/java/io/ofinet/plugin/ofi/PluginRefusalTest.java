package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * What the NetPlugin API refuses, and that a refusal loses nothing: misuse answered as invalid usage
 * naming what was wrong, a send larger than its receive, a registration still in use.
 */
@Timeout(60)
class PluginRefusalTest extends PluginFixture {
    @Test
    void sendsLargerThanTheReceiveFailOnBothSidesAndWriteNothing() throws Exception {
        connectPair();
        long[][] cases = {{5 * 1024, 4 * 1024}, {2 << 20, 1 << 20}};
        int tag = 0;
        for (long[] c : cases) {
            HostBuffer src = buffer(c[0]).pattern(1);
            HostBuffer dst = buffer(c[1] + 64).fill((byte) 0x5A);
            Handles.MrHandle srcMr = a.regMr(send, src.address, src.size, MemoryType.HOST);
            Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
            Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {c[1]}, new int[] {tag},
                    new Handles.MrHandle[] {dstMr});
            Handles.Request s = a.isend(send, src.address, c[0], tag, srcMr);
            NetException sent = assertThrows(NetException.class, () -> both(s, null, null));
            assertEquals(NetResult.INVALID_USAGE, sent.result());
            NetException received = assertThrows(NetException.class, () -> both(null, r, new long[1]));
            assertEquals(NetResult.INVALID_USAGE, received.result());
            for (long i = 0; i < dst.size; i++) {
                assertEquals(0x5A, dst.get(i), "byte " + i);
            }
            tag++;
        }
    }

    /**
     * A connect its thread began and gave up (the thread ended, and no call took the connection
     * within connectionTimeoutMs, as when an abort ends NCCL's connect loop): the thread's endpoint
     * closes, and a call with the handle after that is refused saying so, not begun again as a
     * second connection behind the first.
     */
    @Test
    void aConnectCalledAgainAfterItWasGivenUpIsRefused() throws Exception {
        OfiNetPlugin c = new OfiNetPlugin(() -> provider, () -> layout(", \"connectionTimeoutMs\": "
                + TestTime.ms(500)));
        c.init();
        try {
            Handles.ListenComm listen = null;
            byte[] handle = null;
            Object[] got = new Object[1];
            long began = 0;
            // The watchdog may step b between the CONNECT and the call's look at its answer (rarely,
            // on a busy machine): a connect that returned its connection at once is tried again.
            for (int attempt = 0; attempt < 5 && (handle == null || got[0] != null); attempt++) {
                if (got[0] instanceof Handles.SendComm early) {
                    c.closeSend(early);
                    b.closeListen(listen);
                }
                listen = b.listen(0);
                byte[] h = listen.handle();
                handle = h;
                Thread proxy = new Thread(() -> {
                    try {
                        got[0] = c.connect(0, h, ConnectConfig.DEFAULT);
                    } catch (Throwable t) {
                        got[0] = t;
                    }
                }, "proxy");
                began = System.nanoTime();
                proxy.start();
                proxy.join();
                assertFalse(got[0] instanceof Throwable, () -> "the connect threw: " + got[0]);
            }
            assertNull(got[0], "b has not accepted");
            byte[] given = handle;
            long deadline = System.nanoTime() + TestTime.nanos(10_000);
            while (c.statistics(0).get("endpoints") > 0) {
                assertTrue(System.nanoTime() - deadline < 0, "the ended thread's endpoint closed within 10 s");
                Thread.sleep(10);
            }
            Handles.ListenComm other = b.listen(0);
            c.connect(0, other.handle(), ConnectConfig.DEFAULT); // another connect between forgets nothing
            NetException refused = assertThrows(NetException.class, () -> c.connect(0, given, ConnectConfig.DEFAULT));
            assertEquals(NetResult.INVALID_USAGE, refused.result());
            assertTrue(refused.getMessage().contains("given up"), refused.getMessage());
            // One more connectionTimeoutMs on, the handle is taken for a new one's (a listen id comes back).
            for (long end = System.nanoTime() + TestTime.nanos(10_000); ; Thread.sleep(20)) {
                try {
                    c.connect(0, given, ConnectConfig.DEFAULT);
                    break;
                } catch (NetException stillRefused) {
                    assertTrue(System.nanoTime() - end < 0, "the mark went within 10 s");
                }
            }
            // Marked once the endpoint closed as abandoned, past the connect's deadline (connectionTimeoutMs
            // after it began; any look at the statistics above may have been the one to mark it), and
            // refused for one more connectionTimeoutMs from there.
            assertTrue(System.nanoTime() - began >= 2 * TestTime.nanos(500), "refused until twice connectionTimeoutMs");
            b.closeListen(other);
            b.closeListen(listen);
        } finally {
            c.close();
        }
    }

    /**
     * A connect given up on a thread that lives on (an abort ended NCCL's connect loop; the thread
     * goes on with other work): closed once twice connectionTimeoutMs has passed, and a call with its
     * handle after that, on this thread or another, is refused as invalid usage saying so, not begun
     * again. An entry no call comes back to goes after four times the timeout.
     */
    @Test
    void aConnectGivenUpOnAThreadThatLivesIsRefusedAfterItsClose() throws Exception {
        long timeoutMs = TestTime.ms(1000);
        OfiNetPlugin c = new OfiNetPlugin(() -> provider, () -> layout(", \"connectionTimeoutMs\": " + timeoutMs));
        c.init();
        try {
            Handles.ListenComm listen = listenWithConnectUnderWay(c);
            // No call for twice the timeout: the watchdog's steps of this thread's endpoint close it.
            for (long end = System.nanoTime() + 2 * timeoutMs * 1_000_000L + TestTime.nanos(10_000); ;
                    Thread.sleep(5)) {
                if (c.statistics(0).get("connectsGivenUp") > 0) {
                    break;
                }
                assertTrue(System.nanoTime() - end < 0, "given up within 10 s past twice the timeout");
            }
            byte[] handle = listen.handle();
            assertEquals(1, c.statistics(0).get("connectsUnderWay"));
            NetException refused = assertThrows(NetException.class, () -> c.connect(0, handle, ConnectConfig.DEFAULT));
            assertEquals(NetResult.INVALID_USAGE, refused.result(), refused.getMessage());
            assertTrue(refused.getMessage().contains("given up"), refused.getMessage());
            assertEquals(1, c.statistics(0).get("connectsUnderWay"), "kept as a mark");
            NetException[] elsewhere = new NetException[1];
            Thread other = new Thread(() -> elsewhere[0] = assertThrows(NetException.class,
                    () -> c.connect(0, handle, ConnectConfig.DEFAULT)), "other");
            other.start();
            other.join();
            assertNotNull(elsewhere[0], "another thread's call is refused too");
            assertTrue(elsewhere[0].getMessage().contains("given up"), elsewhere[0].getMessage());
            b.closeListen(listen);

            // One no call comes back to: the plugin's entries go once the protocol has forgotten them.
            Handles.ListenComm second = b.listen(0);
            long begun = System.nanoTime();
            Handles.SendComm early = c.connect(0, second.handle(), ConnectConfig.DEFAULT);
            if (early == null) {
                for (long end = begun + 4 * timeoutMs * 1_000_000L + TestTime.nanos(10_000); ; Thread.sleep(20)) {
                    if (c.statistics(0).get("connectsUnderWay") == 0) {
                        break;
                    }
                    assertTrue(System.nanoTime() - end < 0, "the entries went within 10 s past four times the timeout");
                }
                assertTrue(System.nanoTime() - begun >= 4 * timeoutMs * 1_000_000L, "not before the protocol forgot it");
            } else {
                c.closeSend(early);
            }
            b.closeListen(second);
        } finally {
            c.close();
        }
    }

    @Test
    void misuseIsInvalidUsageSayingWhat() throws Exception {
        connectPair();
        HostBuffer src = buffer(64);
        Handles.MrHandle mr = a.regMr(send, src.address, src.size, MemoryType.HOST);
        HostBuffer dst = buffer(64);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {64}, new int[] {1},
                new Handles.MrHandle[] {dstMr});
        Handles.Request s = a.isend(send, src.address, 64, 1, mr);
        both(s, r, new long[1]);

        NetException stale = assertThrows(NetException.class, () -> a.test(s, null));
        assertEquals(NetResult.INVALID_USAGE, stale.result());
        assertEquals("test: the request is no longer outstanding: test already reported it done or failed",
                stale.getMessage());
        NetException foreign = assertThrows(NetException.class, () -> b.isend(send, src.address, 64, 1, mr));
        assertEquals("isend: a send communicator that this plugin did not make", foreign.getMessage());
        assertEquals(NetResult.INVALID_USAGE,
                assertThrows(NetException.class, () -> a.isend(send, src.address, 1L << 33, 1, mr)).result());
        NetException tooMany = assertThrows(NetException.class, () -> b.irecv(recv, 9, new long[9], new long[9],
                new int[9], new Handles.MrHandle[9]));
        assertEquals("irecv: 9 buffers; maxRecvs is 8", tooMany.getMessage());
        NetException shortHandles = assertThrows(NetException.class, () -> b.irecv(recv, 2, new long[2], new long[2],
                new int[2], new Handles.MrHandle[] {dstMr}));
        assertEquals(NetResult.INVALID_ARGUMENT, shortHandles.result());
        assertEquals("irecv: 2 buffers, but 1 memory handles", shortHandles.getMessage());
        NetException cuda = assertThrows(NetException.class, () -> a.regMr(send, src.address, 64, MemoryType.CUDA));
        assertEquals(NetResult.INVALID_USAGE, cuda.result());
        assertTrue(cuda.getMessage().contains("CUDA memory is not supported"), cuda.getMessage());
        assertEquals(NetResult.INVALID_ARGUMENT, assertThrows(NetException.class,
                () -> a.regMr(send, ByteBuffer.allocate(8))).result(), "heap buffers cannot be registered");
        a.closeSend(send);
        NetException twice = assertThrows(NetException.class, () -> a.closeSend(send));
        assertEquals(NetResult.INVALID_USAGE, twice.result());
        assertEquals("closeSend: the communicator is closed already", twice.getMessage());
        NetException closed = assertThrows(NetException.class, () -> a.isend(send, src.address, 64, 1, mr));
        assertEquals("isend: the communicator is closed", closed.getMessage());
        b.closeRecv(recv);
        assertEquals("closeRecv: the communicator is closed already",
                assertThrows(NetException.class, () -> b.closeRecv(recv)).getMessage());
        b.closeListen(listen);
        assertEquals("closeListen: the communicator is closed already",
                assertThrows(NetException.class, () -> b.closeListen(listen)).getMessage());
        OfiNetPlugin fresh = new OfiNetPlugin(MemProvider::create, PluginFixture::layout);
        assertEquals(NetResult.INVALID_USAGE, assertThrows(NetException.class, fresh::devices).result());
    }

    @Test
    void rangesThatWrapOrLeaveTheirRegistrationAndMissingArraysAreInvalidArgumentsThatLoseNothing()
            throws Exception {
        connectPair();
        HostBuffer src = buffer(4096).pattern(6);
        HostBuffer dst = buffer(4096).fill((byte) 0x5A);
        Handles.MrHandle srcMr = a.regMr(send, src.address, src.size, MemoryType.HOST);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        Handles.MrHandle[] dstMrs = {dstMr};
        long[] at = {dst.address};
        int[] tags = {7};

        invalid(() -> b.irecv(recv, 1, at, new long[] {Long.MAX_VALUE}, tags, dstMrs),
                "irecv: buffer 0 [0x" + Long.toHexString(dst.address) + ", +" + Long.MAX_VALUE
                        + ") is not inside its registration");
        invalid(() -> a.isend(send, Long.MAX_VALUE - 16, 64, 7, srcMr),
                "isend: [0x7fffffffffffffef, +64) is not inside its registration");
        invalid(() -> a.regMr(send, src.address, Long.MAX_VALUE, MemoryType.HOST),
                "regMr: [0x" + Long.toHexString(src.address) + ", +" + Long.MAX_VALUE
                        + ") is not a range of user-space addresses");
        invalid(() -> a.regMr(send, -4096, 64, MemoryType.HOST),
                "regMr: [0xfffffffffffff000, +64) is not a range of user-space addresses");
        invalid(() -> b.iflush(recv, 1, new long[] {dst.address + 4000}, new long[] {4096}, dstMrs),
                "iflush: buffer 0 [0x" + Long.toHexString(dst.address + 4000) + ", +4096) is not inside its"
                        + " registration");
        invalid(() -> b.irecv(recv, 1, null, new long[] {64}, tags, dstMrs), "irecv: no array of addresses");
        invalid(() -> b.irecv(recv, 1, at, null, tags, dstMrs), "irecv: no array of sizes");
        invalid(() -> b.irecv(recv, 1, at, new long[] {64}, null, dstMrs), "irecv: no array of tags");
        invalid(() -> b.irecv(recv, 1, at, new long[] {64}, tags, null), "irecv: no array of memory handles");
        invalid(() -> b.iflush(recv, 1, at, null, dstMrs), "iflush: no array of sizes");
        invalid(() -> b.iflush(recv, 1, null, new long[] {64}, dstMrs), "iflush: no array of addresses");

        // Nothing was posted or kept: the pair moves data, and both registrations go.
        Handles.Request r = b.irecv(recv, 1, at, new long[] {4096}, tags, dstMrs);
        Handles.Request s = a.isend(send, src.address, 4096, 7, srcMr);
        assertEquals(4096, both(s, r, new long[1]));
        assertArrayEquals(src.bytes(0, 4096), dst.bytes(0, 4096));
        a.deregMr(send, srcMr);
        b.deregMr(recv, dstMr);
    }

    private static void invalid(Executable call, String message) {
        NetException e = assertThrows(NetException.class, call);
        assertEquals(NetResult.INVALID_ARGUMENT, e.result(), e.getMessage());
        assertEquals(message, e.getMessage());
    }

    @Test
    void aHandleInUseIsNotDeregisteredAndShortSizesKeepTheRequest() throws Exception {
        connectPair();
        HostBuffer src = buffer(256).pattern(4);
        HostBuffer dst = buffer(256);
        Handles.MrHandle srcMr = a.regMr(send, src.address, src.size, MemoryType.HOST);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 2, new long[] {dst.address, dst.address + 128}, new long[] {128, 128},
                new int[] {1, 2}, new Handles.MrHandle[] {dstMr, dstMr});
        NetException inUse = assertThrows(NetException.class, () -> b.deregMr(recv, dstMr));
        assertEquals(NetResult.INVALID_USAGE, inUse.result());
        assertEquals("deregMr: the memory handle is used by 1 outstanding request; nothing was deregistered (test"
                + " them to completion or close their communicator first)", inUse.getMessage());
        Handles.Request s1 = a.isend(send, src.address, 128, 1, srcMr);
        Handles.Request s2 = a.isend(send, src.address + 128, 100, 2, srcMr);
        assertEquals("deregMr: the memory handle is used by 2 outstanding requests; nothing was deregistered (test"
                + " them to completion or close their communicator first)",
                assertThrows(NetException.class, () -> a.deregMr(send, srcMr)).getMessage());
        both(s1, null, null);
        both(s2, null, null);
        NetException shortSizes = assertThrows(NetException.class, () -> b.test(r, new long[1]));
        assertEquals(NetResult.INVALID_ARGUMENT, shortSizes.result());
        assertEquals("test: the receive has 2 buffers, but sizes has room for 1; the request is still outstanding",
                shortSizes.getMessage());
        long[] sizes = new long[2];
        await(b, r, sizes);
        assertEquals(128, sizes[0]);
        assertEquals(100, sizes[1]);
        assertArrayEquals(src.bytes(0, 228), dst.bytes(0, 228), "the receive was served while the refusals happened");
        a.deregMr(send, srcMr);
        b.deregMr(recv, dstMr);
        // A receive left outstanding ends with its communicator, and so does its use of the handle,
        // which a communicator of the same endpoint can then deregister.
        Handles.RecvComm other = connect(listen).recv();
        Handles.MrHandle again = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        assertNotNull(b.irecv(recv, 1, new long[] {dst.address}, new long[] {64}, new int[] {3},
                new Handles.MrHandle[] {again}));
        assertThrows(NetException.class, () -> b.deregMr(other, again));
        b.closeRecv(recv);
        b.deregMr(other, again);
        b.closeRecv(other);
    }

    @Test
    void aHandleMadeBeforeThePluginClosedIsRefusedAsClosedWithIt() throws Exception {
        connectPair();
        HostBuffer dst = buffer(4096);
        Handles.MrHandle dstMr = b.regMr(recv, dst.address, dst.size, MemoryType.HOST);
        Handles.Request r = b.irecv(recv, 1, new long[] {dst.address}, new long[] {4096}, new int[] {1},
                new Handles.MrHandle[] {dstMr});
        b.close();
        NetException test = assertThrows(NetException.class, () -> b.test(r, new long[1]));
        assertEquals(NetResult.INVALID_USAGE, test.result(), "not the peer's fault: " + test.getMessage());
        assertEquals("test: a request made before the plugin was closed, and closed with it", test.getMessage());
        assertEquals("deregMr: a communicator made before the plugin was closed, and closed with it",
                assertThrows(NetException.class, () -> b.deregMr(recv, dstMr)).getMessage());
        b.init();
        assertEquals("closeRecv: a receive communicator made before the plugin was closed, and closed with it",
                assertThrows(NetException.class, () -> b.closeRecv(recv)).getMessage(), "also once opened again");
        assertEquals("test: a request that this plugin did not make",
                assertThrows(NetException.class, () -> a.test(r, null)).getMessage(), "another plugin's");
    }

    @Test
    void memoryRegisteredForAnotherEndpointIsNotDeregisteredThroughThisOne() throws Exception {
        connectPair();
        HostBuffer src = buffer(64);
        Handles.MrHandle mr = a.regMr(send, src.address, src.size, MemoryType.HOST);
        Handles.SendComm[] other = new Handles.SendComm[1];
        Thread elsewhere = new Thread(() -> { // an endpoint per thread: a communicator of another endpoint
            try {
                other[0] = connect(listen).send();
            } catch (NetException e) {
                throw new IllegalStateException(e);
            }
        });
        elsewhere.start();
        elsewhere.join();
        assertEquals("deregMr: the memory handle was registered for a communicator of another endpoint",
                assertThrows(NetException.class, () -> a.deregMr(other[0], mr)).getMessage());
        a.deregMr(send, mr);
    }
}
