package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.testing.TestTime;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetResult;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The door's logic and failure paths over a mocked plugin, with C memory from an arena. */
class NcclDoorTest {
    private final NetPlugin plugin = mock(NetPlugin.class);
    private final RecordingLog log = new RecordingLog();
    private final List<String> warnings = log.warnings;
    private final NcclDoor door = new NcclDoor(plugin, log);
    private final Handles.SendComm send = mock(Handles.SendComm.class);
    private final Handles.RecvComm recv = mock(Handles.RecvComm.class);
    private final Handles.MrHandle mr = mock(Handles.MrHandle.class);
    private final Handles.Request request = mock(Handles.Request.class);
    private Arena arena;
    private MemorySegment out;
    private long sendComm;
    private long recvComm;
    private long mhandle;

    @BeforeEach
    void connect() throws Exception {
        arena = Arena.ofConfined();
        out = arena.allocate(1024);
        when(plugin.devices()).thenReturn(1);
        when(plugin.connect(eq(0), any(), any())).thenReturn(send);
        Handles.ListenComm listen = mock(Handles.ListenComm.class);
        when(listen.handle()).thenReturn(new byte[] {1, 2, 3});
        when(plugin.listen(0)).thenReturn(listen);
        when(plugin.accept(listen)).thenReturn(recv);
        when(plugin.regMr(any(), anyLong(), anyLong(), eq(MemoryType.HOST))).thenReturn(mr);
        assertEquals(0, door.init(at(0), 1, 0, false));
        long ctx = get(0);
        assertEquals(0, door.listen(ctx, 0, at(128), at(8)));
        assertEquals(3, out.get(ValueLayout.JAVA_BYTE, 130), "the handle's bytes");
        assertEquals(0, out.get(ValueLayout.JAVA_BYTE, 131), "zeroed after them");
        assertEquals(0, door.connect(ctx, 0, at(128), at(16)));
        assertEquals(0, door.accept(get(8), at(24)));
        sendComm = get(16);
        recvComm = get(24);
        assertEquals(0, door.regMr(sendComm, 0x1000, 64, 1, at(32)));
        mhandle = get(32);
        verify(plugin).connect(eq(0), any(), eq(ConnectConfig.DEFAULT));
    }

    @AfterEach
    void free() {
        arena.close();
    }

    private long at(long offset) {
        return out.address() + offset;
    }

    private long get(long offset) {
        return out.get(ValueLayout.JAVA_LONG, offset);
    }

    @Test
    void aFailureOfThePluginIsItsNcclCodeAndALogLineAndNoOutput() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenThrow(new NetException(NetResult.REMOTE_ERROR,
                "isend: peer 1.2.3.4 is gone"));
        out.set(ValueLayout.JAVA_LONG, 40, 77);
        assertEquals(6, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)), "ncclRemoteError");
        assertEquals(77, get(40), "*request untouched");
        assertEquals(List.of("isend: peer 1.2.3.4 is gone"), warnings);
    }

    @Test
    void anUnexpectedExceptionIsAnInternalErrorNeverThrown() throws Exception {
        when(plugin.isend(any(), anyLong(), anyLong(), anyInt(), any())).thenThrow(new IllegalStateException("bug"));
        assertEquals(3, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)));
        assertTrue(warnings.get(0).contains("unexpected java.lang.IllegalStateException: bug"), warnings.toString());
    }

    @Test
    void retryIsANullRequestAndAPostedOneIsTestedToDone() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 5, mr)).thenReturn(null, request);
        assertEquals(0, door.isend(sendComm, 0x1000, 10, 5, mhandle, at(40)));
        assertEquals(0, get(40), "NULL: retry");
        assertEquals(0, door.isend(sendComm, 0x1000, 10, 5, mhandle, at(40)));
        long req = get(40);
        assertNotEquals(0, req);
        when(plugin.test(eq(request), any())).thenReturn(false, true);
        assertEquals(0, door.test(req, at(48), at(56)));
        assertEquals(0, out.get(ValueLayout.JAVA_INT, 48));
        assertEquals(0, door.test(req, at(48), at(56)));
        assertEquals(1, out.get(ValueLayout.JAVA_INT, 48));
        assertEquals(10, out.get(ValueLayout.JAVA_INT, 56), "a send reports its size");
        assertEquals(3, door.test(req, at(48), at(56)), "reported: stale");
    }

    @Test
    void irecvAlwaysOverwritesAPresetRequestAndTestReportsEachBuffersSize() throws Exception {
        MemorySegment args = arena.allocate(256);
        args.set(ValueLayout.JAVA_LONG, 0, 0x2000); // data[0]
        args.set(ValueLayout.JAVA_LONG, 8, 0x3000); // data[1]
        args.set(ValueLayout.JAVA_LONG, 16, 100); // sizes
        args.set(ValueLayout.JAVA_LONG, 24, 200);
        args.set(ValueLayout.JAVA_INT, 32, 7); // tags
        args.set(ValueLayout.JAVA_INT, 36, 8);
        args.set(ValueLayout.JAVA_LONG, 40, mhandle); // mhandles
        args.set(ValueLayout.JAVA_LONG, 48, mhandle);
        when(plugin.irecv(eq(recv), eq(2), any(), any(), any(), any())).thenReturn(null, request);
        out.set(ValueLayout.JAVA_LONG, 64, 1); // NCCL_NET_OPTIONAL_RECV_COMPLETION
        long a = args.address();
        assertEquals(0, door.irecv(recvComm, 2, a, a + 16, a + 32, a + 40, at(64)));
        assertEquals(0, get(64), "the preset was overwritten with NULL: retry");
        assertEquals(0, door.irecv(recvComm, 2, a, a + 16, a + 32, a + 40, at(64)));
        when(plugin.test(eq(request), any())).thenAnswer(inv -> {
            long[] sizes = inv.getArgument(1);
            sizes[0] = 99;
            sizes[1] = 0;
            return true;
        });
        assertEquals(0, door.test(get(64), at(72), at(80)));
        assertEquals(99, out.get(ValueLayout.JAVA_INT, 80));
        assertEquals(0, out.get(ValueLayout.JAVA_INT, 84));
    }

    @Test
    void aFlushThatCannotBePostedIsARequestThatTestPostsLater() throws Exception {
        MemorySegment args = arena.allocate(64);
        args.set(ValueLayout.JAVA_LONG, 0, 0x2000);
        args.set(ValueLayout.JAVA_INT, 8, 512);
        args.set(ValueLayout.JAVA_LONG, 16, mhandle);
        long a = args.address();
        when(plugin.iflush(eq(recv), eq(1), any(), any(), any())).thenReturn(null, null, request);
        assertEquals(0, door.iflush(recvComm, 1, a, a + 8, a + 16, at(64)));
        long flush = get(64);
        assertNotEquals(0, flush, "never NULL: NCCL would read it as nothing to wait for");
        assertEquals(0, door.test(flush, at(72), 0));
        assertEquals(0, out.get(ValueLayout.JAVA_INT, 72), "still waiting to be posted");
        when(plugin.test(eq(request), any())).thenReturn(true);
        assertEquals(0, door.test(flush, at(72), 0));
        assertEquals(1, out.get(ValueLayout.JAVA_INT, 72));
        verify(plugin, times(3)).iflush(eq(recv), eq(1), any(), any(), any());
    }

    @Test
    void memoryAFlushWaitingToBePostedUsesClosesItsCommunicatorBeforeItIsDeregistered() throws Exception {
        assertEquals(0, door.regMr(recvComm, 0x2000, 512, 1, at(192)));
        long received = get(192);
        MemorySegment args = arena.allocate(64);
        args.set(ValueLayout.JAVA_LONG, 0, 0x2000);
        args.set(ValueLayout.JAVA_INT, 8, 512);
        args.set(ValueLayout.JAVA_LONG, 16, received);
        long a = args.address();
        when(plugin.iflush(eq(recv), eq(1), any(), any(), any())).thenReturn(null);
        assertEquals(0, door.iflush(recvComm, 1, a, a + 8, a + 16, at(64)));
        long flush = get(64);
        org.mockito.InOrder order = org.mockito.Mockito.inOrder(plugin);
        assertEquals(0, door.deregMr(recvComm, received), "NCCL aborts: the flush it keeps uses the memory");
        order.verify(plugin).closeRecv(recv);
        order.verify(plugin).deregMr(recv, mr);
        assertEquals(0, door.live()[3], "released at once, the communicator closed first");
        assertEquals(3, door.test(flush, at(72), 0), "the close dropped the flush that was never posted");
        verify(plugin, times(1)).iflush(any(), anyInt(), any(), any(), any());
        assertEquals(0, door.close(recvComm, CommEntry.RECV), "NCCL's close finds it closed");
        verify(plugin, times(1)).closeRecv(recv);
        assertEquals(3, door.close(recvComm, CommEntry.RECV), "and only once");
    }

    @Test
    void aRequestThatFailsIsGoneAfterItsFailure() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenReturn(request);
        when(plugin.test(eq(request), any())).thenThrow(new NetException(NetResult.INVALID_USAGE, "test: too big"));
        assertEquals(0, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)));
        assertEquals(5, door.test(get(40), at(48), 0), "ncclInvalidUsage");
        assertEquals(3, door.test(get(40), at(48), 0), "stale afterwards");
    }

    @Test
    void aRequestWhoseTestHitsABugOfThePluginsKeepsItsHandleAndAnswersTheSameAgain() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenReturn(request);
        when(plugin.test(eq(request), any())).thenThrow(new IllegalStateException("bug"));
        assertEquals(0, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)));
        assertEquals(3, door.test(get(40), at(48), 0));
        assertEquals(3, door.test(get(40), at(48), 0));
        assertEquals(List.of("test: unexpected java.lang.IllegalStateException: bug",
                "test: unexpected java.lang.IllegalStateException: bug"), warnings, "the bug named each time, not a"
                + " stale handle");
    }

    @Test
    void whatNcclsCoreMustNeverPassIsAnInternalError() throws Exception {
        assertEquals(3, door.isend(sendComm, 0x1000, 1L << 31, 0, mhandle, at(40)), "more than maxP2pBytes");
        assertEquals(3, door.irecv(recvComm, 9, at(0), at(0), at(0), at(0), at(40)), "more than maxRecvs");
        assertEquals(3, door.irecv(recvComm, 0, at(0), at(0), at(0), at(0), at(40)), "no buffer");
        assertEquals(3, door.isend(recvComm, 0x1000, 1, 0, mhandle, at(40)), "a receive comm to isend");
        assertEquals(3, door.regMr(sendComm, 0x1000, 1, 3, at(40)), "no such memory type");
        assertEquals(3, door.isend(sendComm, 0x1000, 1, 0, mhandle, 0), "no request pointer");
        assertEquals(3, door.isend(sendComm, 0x1000, 1, 0, mhandle ^ 1L << 40, at(40)), "a stale memory handle");
        assertTrue(warnings.get(0).contains("maxP2pBytes"), warnings.toString());
    }

    /** Posts a send on the send communicator, left outstanding: NCCL aborting with it in flight. */
    private long outstandingSend() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenReturn(request);
        assertEquals(0, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)));
        return get(40);
    }

    private static NetException inUse() {
        return new NetException(NetResult.INVALID_USAGE, "deregMr: the memory handle is used by 1 outstanding request");
    }

    /**
     * NCCL aborts: it deregisters memory that requests still use, frees it, then closes. The
     * communicator closes at the deregMr, which ends its requests, so that nothing touches the memory
     * once deregMr has returned; NCCL's own close then succeeds without a second close.
     */
    @Test
    void memoryInUseClosesItsCommunicatorBeforeItIsDeregisteredAsNcclAborts() throws Exception {
        outstandingSend();
        doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        org.mockito.InOrder order = org.mockito.Mockito.inOrder(plugin);
        assertEquals(0, door.deregMr(sendComm, mhandle), "NCCL deregisters before it closes: it must succeed");
        order.verify(plugin).deregMr(send, mr);
        order.verify(plugin).closeSend(send);
        order.verify(plugin).deregMr(send, mr);
        assertEquals(0, door.live()[3], "released before deregMr returned");
        assertEquals(3, door.deregMr(sendComm, mhandle), "the handle is gone from the table at once");
        assertEquals(0, door.close(sendComm, CommEntry.SEND));
        verify(plugin, times(1)).closeSend(send);
        assertEquals(3, door.close(sendComm, CommEntry.SEND), "closing twice");
        assertTrue(log.infos.stream().anyMatch(m -> m.contains("the send communicator was closed first")),
                log.infos.toString());
    }

    @Test
    void memoryInUseIsDeregisteredAlsoWhenTheCloseOfItsCommunicatorFails() throws Exception {
        outstandingSend();
        doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        doThrow(new NetException(NetResult.REMOTE_ERROR, "closeSend: the peer did not answer")).when(plugin)
                .closeSend(send);
        assertEquals(0, door.deregMr(sendComm, mhandle), "the failed close ended the requests");
        assertEquals(0, door.live()[3], "and the memory was released");
        verify(plugin, times(2)).deregMr(send, mr);
        assertEquals(List.of("deregMr: closing the send communicator whose requests used the memory: closeSend: the"
                + " peer did not answer"), warnings);
        assertEquals(0, door.close(sendComm, CommEntry.SEND), "closed already; its failure was logged");
        verify(plugin, times(1)).closeSend(send);
    }

    @Test
    void memoryStillInUseOnceItsCommunicatorClosedIsReleasedWhenTheRequestsUsingItEnd() throws Exception {
        outstandingSend();
        doThrow(inUse()).doThrow(inUse()).doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        assertEquals(0, door.deregMr(sendComm, mhandle));
        verify(plugin, times(1)).closeSend(send);
        assertEquals(1, door.live()[3], "a post under way on another thread, say, still uses it");
        assertEquals(0, door.close(recvComm, CommEntry.RECV), "a close tries it again");
        assertEquals(0, door.live()[3]);
        verify(plugin, times(4)).deregMr(send, mr);
    }

    /** Memory its own communicator has no request outstanding with is used by others: that one stays open. */
    @Test
    void memoryInUseWhileItsCommunicatorHasNothingOutstandingLeavesTheCommunicatorOpen() throws Exception {
        doThrow(inUse()).doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        assertEquals(0, door.deregMr(sendComm, mhandle));
        verify(plugin, times(0)).closeSend(send);
        assertEquals(1, door.live()[3], "released once the requests using it end");
        assertEquals(0, door.close(recvComm, CommEntry.RECV));
        assertEquals(0, door.live()[3]);
    }

    /**
     * A deregMr of memory in use while another live thread still drives its communicator (not
     * NCCL's teardown, which stops its progress thread first) leaves the communicator to that thread:
     * closing it beside the thread would race it. Once that thread has ended, the close is safe.
     */
    @Test
    void memoryInUseOfACommunicatorAnotherLiveThreadDrivesIsLeftToThatThread() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenReturn(request);
        java.util.concurrent.CountDownLatch posted = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread progress = new Thread(() -> {
            door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40));
            posted.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "proxy progress");
        progress.start();
        posted.await();
        doThrow(inUse()).doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        assertEquals(0, door.deregMr(sendComm, mhandle));
        verify(plugin, times(0)).closeSend(send);
        assertTrue(warnings.get(0).contains("which thread \"proxy progress\" still drives"), warnings.toString());
        assertEquals(1, door.live()[3]);
        release.countDown();
        progress.join();
        assertEquals(0, door.close(sendComm, CommEntry.SEND), "the close releases it");
        assertEquals(0, door.live()[3]);
    }

    /**
     * The request using the memory ends while its deregMr decides what to do (here, as it logs that
     * another thread drives the communicator): the completion finds no deregistration waiting yet,
     * so the deregMr itself must try again once it has put its own in the list.
     */
    @Test
    void memoryWhoseRequestEndsWhileItsDeregMrDecidesIsReleasedBeforeDeregMrReturns() throws Exception {
        when(plugin.isend(send, 0x1000, 10, 0, mr)).thenReturn(request);
        when(plugin.test(eq(request), any())).thenReturn(true);
        SynchronousQueue<Long> toProgress = new SynchronousQueue<>();
        SynchronousQueue<Integer> tested = new SynchronousQueue<>();
        long waitMs = TestTime.ms(10_000);
        Thread progress = new Thread(() -> {
            try {
                handOver(tested, door.isend(sendComm, 0x1000, 10, 0, mhandle, at(40)), waitMs);
                Long req = toProgress.poll(waitMs, TimeUnit.MILLISECONDS);
                if (req != null) {
                    handOver(tested, door.test(req, at(48), at(56)), waitMs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "proxy progress");
        progress.setDaemon(true);
        progress.start();
        assertEquals(0, tested.poll(waitMs, TimeUnit.MILLISECONDS), "posted");
        long req = get(40);
        Integer[] testedWhileLogging = new Integer[1];
        log.atWarn = () -> {
            try {
                if (toProgress.offer(req, waitMs, TimeUnit.MILLISECONDS)) {
                    testedWhileLogging[0] = tested.poll(waitMs, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        doThrow(inUse()).doNothing().when(plugin).deregMr(send, mr);
        assertEquals(0, door.deregMr(sendComm, mhandle));
        assertEquals(0, testedWhileLogging[0], "the request completes while deregMr logs");
        progress.join(waitMs);
        assertFalse(progress.isAlive(), "the progress thread ended");
        assertEquals(1, out.get(ValueLayout.JAVA_INT, 48), "done");
        assertEquals(0, door.live()[3], "released before deregMr returned: no later completion tries it");
        verify(plugin, times(2)).deregMr(send, mr);
    }

    private static void handOver(SynchronousQueue<Integer> queue, int value, long waitMs)
            throws InterruptedException {
        if (!queue.offer(value, waitMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("nobody took " + value + " within " + waitMs + " ms");
        }
    }

    @Test
    void aClosedCommunicatorStillDeregistersAndClosesAreChecked() throws Exception {
        assertEquals(0, door.close(sendComm, CommEntry.SEND));
        assertEquals(0, door.deregMr(sendComm, mhandle), "NCCL may deregister through the closed communicator");
        assertEquals(3, door.deregMr(sendComm, mhandle), "but only once");
        assertEquals(3, door.close(sendComm, CommEntry.SEND), "closing twice");
        assertEquals(3, door.close(recvComm, CommEntry.SEND), "closeSend of a receive communicator");
        assertEquals(0, door.close(recvComm, CommEntry.RECV));
        assertEquals(1, door.live()[0], "only the listen communicator is left");
    }

    /**
     * Two threads deregistering one handle at once: one succeeds, the other finds no handle, and the
     * plugin deregisters it once (two that both looked it up before either removed it deregistered
     * it twice, and the second's "deregistered already" was taken for memory in use).
     */
    @Test
    void twoThreadsDeregisteringOneHandleDeregisterItOnce() throws Exception {
        int rounds = 20_000;
        long[] handles = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            assertEquals(0, door.regMr(sendComm, 0x1000, 64, 1, at(32)));
            handles[i] = get(32);
        }
        CyclicBarrier start = new CyclicBarrier(2);
        int[][] results = new int[2][rounds];
        Thread[] threads = new Thread[2];
        for (int t = 0; t < 2; t++) {
            int me = t;
            threads[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        start.await();
                        results[me][i] = door.deregMr(sendComm, handles[i]);
                    }
                } catch (Exception e) {
                    results[me][0] = -1;
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        int twice = 0;
        for (int i = 0; i < rounds; i++) {
            int[] pair = {results[0][i], results[1][i]};
            Arrays.sort(pair);
            twice += pair[0] == 0 && pair[1] == 0 ? 1 : 0;
            assertTrue(pair[0] == 0 && (pair[1] == 0 || pair[1] == 3), "round " + i + ": " + Arrays.toString(pair));
        }
        assertEquals(0, twice, "rounds in which both deregistered one handle");
        verify(plugin, times(rounds)).deregMr(send, mr);
        assertEquals(0, door.live()[3], "nothing waits to be deregistered");
    }

    @Test
    void anErrorOtherThanInUseFailsTheDeregistration() throws Exception {
        doThrow(new NetException(NetResult.SYSTEM_ERROR, "deregMr: fi_close failed")).when(plugin).deregMr(send, mr);
        assertEquals(2, door.deregMr(sendComm, mhandle));
        assertEquals(0, door.live()[3]);
    }

    @Test
    void aDeregistrationThatFailedGivesItsHandleUpAndIsNeverTriedAgain() throws Exception {
        doThrow(new NetException(NetResult.SYSTEM_ERROR, "deregMr: fi_close failed"))
                .doThrow(new NetException(NetResult.INVALID_USAGE,
                        "deregMr: the memory handle was deregistered already"))
                .when(plugin).deregMr(send, mr);
        assertEquals(2, door.deregMr(sendComm, mhandle));
        assertEquals(3, door.deregMr(sendComm, mhandle), "a second deregMr finds no handle");
        assertEquals(0, door.live()[3], "nothing waits to be deregistered");
        verify(plugin, times(1)).deregMr(send, mr);
    }

    @Test
    void aDeferredDeregistrationThatThrowsChangesNoOperationsResult() throws Exception {
        doThrow(inUse()).doThrow(inUse()).doThrow(new IllegalStateException("bug")).when(plugin).deregMr(send, mr);
        assertEquals(0, door.regMr(sendComm, 0x2000, 64, 1, at(200)));
        long other = get(200);
        assertEquals(0, door.deregMr(sendComm, mhandle));
        assertEquals(1, door.live()[3]);
        when(plugin.isend(send, 0x2000, 10, 0, mr)).thenReturn(request);
        when(plugin.test(eq(request), any())).thenReturn(true);
        assertEquals(0, door.isend(sendComm, 0x2000, 10, 0, other, at(40)));
        assertEquals(0, door.test(get(40), at(48), 0), "the request's own result");
        assertEquals(1, out.get(ValueLayout.JAVA_INT, 48));
        assertEquals(0, door.live()[3], "the deregistration that threw is given up");
        assertTrue(warnings.contains("deregMr (deferred): unexpected java.lang.IllegalStateException: bug"),
                warnings.toString());
    }

    @Test
    void finalizeSucceedsWhenOnlyItsDiagnosticsFail() throws Exception {
        NcclDoor quiet = new NcclDoor(plugin, new NcclDoor.Log() {
            @Override
            public void warn(String message) {
                warnings.add(message);
            }

            @Override
            public void info(String message) {
                if (message.startsWith("finalize:")) {
                    throw new IllegalStateException("NCCL's logger is gone");
                }
            }
        });
        assertEquals(0, quiet.init(at(0), 1, 0, false));
        long ctx = get(0);
        assertEquals(0, quiet.finalizeContext(ctx));
        assertEquals(3, quiet.finalizeContext(ctx), "once");
    }
}
