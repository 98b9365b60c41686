package io.ofinet.rdma.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionError;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressEngineTest {
    private static final long TIMEOUT_NANOS = 10_000_000_000L;
    private final List<String> log = new ArrayList<>();
    private final PeerQueue peer = new PeerQueue("peer 1");

    @Test
    void readsEachQueueInBatchesOfTheReadCount() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        ProgressEngine engine = new ProgressEngine(List.of(cq, cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.progress();
        verify(cq, org.mockito.Mockito.times(2)).read(any(CompletionBatch.class), eq(4));
    }

    @Test
    void completionsGoToTheirOperationAndRemoteDataToTheHandler() throws Exception {
        ScriptedOp a = new ScriptedOp("a", log, Endpoint.POSTED);
        ScriptedOp b = new ScriptedOp("b", log, Endpoint.POSTED);
        List<Long> remote = new ArrayList<>();
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (rail, flags, len, data) -> remote.add(data));
        engine.register(a);
        engine.register(b);
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {b.context(), 0, 10, 0, 0},
                new long[] {0, 0, 0, 0, 77},
                new long[] {a.context(), 0, 20, 0, 0}));
        assertEquals(3, engine.progress());
        assertEquals(List.of("done b rail 0 len 10", "done a rail 0 len 20"), log);
        assertEquals(List.of(77L), remote);
    }

    @Test
    void aHandlerThatThrowsLosesNoOtherCompletionOfTheBatch() throws Exception {
        ScriptedOp a = new ScriptedOp("a", log, Endpoint.POSTED);
        ScriptedOp b = new ScriptedOp("b", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (rail, flags, len, data) -> {
            throw new IllegalStateException("a fault in the handling of remote data " + data);
        });
        engine.register(a);
        engine.register(b);
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {b.context(), 0, 10, 0, 0},
                new long[] {0, 0, 0, 0, 77},
                new long[] {0, 0, 0, 0, 78},
                new long[] {a.context(), 0, 20, 0, 0}));
        IllegalStateException fault = assertThrows(IllegalStateException.class, engine::progress);
        assertEquals(List.of("done b rail 0 len 10", "done a rail 0 len 20"), log, "the batch's operations completed");
        assertEquals("a fault in the handling of remote data 77", fault.getMessage());
        assertEquals(1, fault.getSuppressed().length, "the second fault is kept with the first");
    }

    @Test
    void aCompletionOfNoKnownOperationLosesNoOtherOfTheBatch() throws Exception {
        ScriptedOp a = new ScriptedOp("a", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(a);
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {0x7777_0000L, 0, 10, 0, 0},
                new long[] {a.context(), 0, 20, 0, 0}));
        assertThrows(RdmaException.class, engine::progress);
        assertEquals(List.of("done a rail 0 len 20"), log, "the operation after it completed");
    }

    @Test
    void aFailedPostFailsItsOperation() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        ScriptedOp broken = new ScriptedOp("handshake send", log, -FiErrno.FI_EIO);
        engine.register(broken);
        engine.submit(broken, peer);
        assertEquals(List.of("post handshake send", "failed handshake send: handshake send: fi_send (provider mock)"
                + " failed: FI_EIO (I/O error)"), log);
    }

    @Test
    void anErrorEntryFailsTheRightOperation() throws Exception {
        ScriptedOp a = new ScriptedOp("a", log, Endpoint.POSTED);
        ScriptedOp b = new ScriptedOp("b", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(a);
        engine.register(b);
        when(cq.read(any(), anyInt())).thenReturn(CompletionQueue.ERROR_AVAILABLE);
        when(cq.readError(any())).thenAnswer(call -> {
            CompletionError e = call.getArgument(0);
            e.set(b.context(), 0, 0, 0, FiErrno.FI_EHOSTUNREACH, 113, "peer unreachable");
            return true;
        });
        engine.progress();
        assertEquals(List.of("failed b: b failed: FI_EHOSTUNREACH (peer unreachable)"), log);
    }

    /**
     * A write and its notice posted in one step are in flight to their peer until both have
     * completed: counted out at the first, the peer showed nothing in flight while the notice was
     * (which a peer's refused reconnects read as its death).
     */
    @Test
    void anOperationWithTwoCompletionsIsInFlightUntilTheSecond() throws Exception {
        PeerQueue remote = new PeerQueue("127.0.0.1:5 on data rail 0", true, 0);
        ScriptedOp writeAndNotice = new ScriptedOp("write and notice", log, Endpoint.POSTED);
        writeAndNotice.awaited = 2;
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(writeAndNotice);
        engine.submit(writeAndNotice, remote);
        assertEquals(1, remote.inFlight());
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {writeAndNotice.context(), 0, 0, 0, 0}));
        engine.progress();
        assertEquals(1, remote.inFlight(), "the notice is still in flight");
        engine.progress();
        assertEquals(0, remote.inFlight());
        assertEquals(List.of("post write and notice", "done write and notice rail 0 len 0",
                "done write and notice rail 0 len 0"), log);
    }

    @Test
    void anUnreachablePeerIsCondemnedAResetConnectionOnlyFailsItsOperations() throws Exception {
        PeerQueue remote = new PeerQueue("127.0.0.1:5 on data rail 0", true, 0);
        PeerQueue own = new PeerQueue("this endpoint on data rail 0");
        ScriptedOp reset = new ScriptedOp("reset", log, Endpoint.POSTED);
        ScriptedOp write = new ScriptedOp("write", log, Endpoint.POSTED);
        ScriptedOp recv = new ScriptedOp("recv", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(reset);
        engine.register(write);
        engine.register(recv);
        engine.submit(reset, remote);
        engine.submit(write, remote);
        engine.submit(recv, own);
        assertEquals(2, remote.inFlight());
        List<String> told = new ArrayList<>();
        remote.listen(cause -> told.add(cause.getMessage()));
        ScriptedOp[] failing = {recv, reset, write};
        int[] errnos = {FiErrno.FI_EHOSTUNREACH, FiErrno.FI_ECANCELED, FiErrno.FI_EHOSTUNREACH};
        int[] next = {0};
        when(cq.read(any(), anyInt())).thenReturn(CompletionQueue.ERROR_AVAILABLE);
        when(cq.readError(any())).thenAnswer(call -> {
            CompletionError e = call.getArgument(0);
            int i = next[0]++;
            e.set(failing[i].context(), 0, 0, 0, errnos[i], errnos[i], "peer gone");
            return true;
        });
        engine.progress();
        assertEquals(null, own.condemned(), "a failed receive says nothing about a peer");
        engine.progress();
        assertEquals(null, remote.condemned(), "a reset connection fails its operation, not the peer");
        assertTrue(log.contains("failed reset: reset failed: FI_ECANCELED (peer gone)"), log.toString());
        engine.progress();
        assertEquals(0, remote.inFlight());
        String expected = "peer 127.0.0.1:5 on data rail 0: write failed: FI_EHOSTUNREACH (peer gone)";
        assertEquals(expected, remote.condemned().getMessage());
        assertEquals(List.of(expected), told);
    }

    @Test
    void aFailedRemoteWriteIsCountedAndTheBatchGoesOn() throws Exception {
        ScriptedOp a = new ScriptedOp("a", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(a);
        when(cq.read(any(), anyInt())).thenReturn(CompletionQueue.ERROR_AVAILABLE)
                .thenAnswer(reads(new long[] {a.context(), 0, 5, 0, 0}));
        when(cq.readError(any())).thenAnswer(call -> {
            CompletionError e = call.getArgument(0);
            e.set(0, 0, 0, 0, FiErrno.FI_EIO, 5, "remote write failed");
            return true;
        });
        engine.progress();
        engine.progress();
        assertEquals(1, engine.remoteWriteErrors());
        assertEquals(List.of("done a rail 0 len 5"), log);
    }

    @Test
    void anUnknownContextIsAnInternalError() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {99, 0, 0, 0, 0}));
        RdmaException e = assertThrows(RdmaException.class, engine::progress);
        assertEquals(ErrorCategory.INTERNAL, e.category());
        assertTrue(e.getMessage().contains("unknown context 99"));
    }

    @Test
    void aRemoteWriteWithAStaleContextGoesToTheRemoteHandlerNotToAnOperation() throws Exception {
        // libfabric 1.17's shm puts a stale msg_id into the context of a remote write's completion.
        ScriptedOp posted = new ScriptedOp("posted receive", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        List<Long> remote = new ArrayList<>();
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS,
                (rail, flags, len, data) -> remote.add(data));
        engine.register(posted);
        long remoteWrite = io.ofinet.fabric.Fi.RMA | io.ofinet.fabric.Fi.REMOTE_WRITE
                | io.ofinet.fabric.Fi.REMOTE_CQ_DATA;
        when(cq.read(any(), anyInt())).thenAnswer(reads(new long[] {posted.context(), remoteWrite, 0, 0, 42},
                new long[] {12345, remoteWrite, 0, 0, 43}));
        assertEquals(2, engine.progress());
        assertEquals(List.of(42L, 43L), remote);
        assertEquals(List.of(), log);
    }

    /** What a read answers: a batch of {@code entries}, each {context, flags, len, buf, data}. */
    private static org.mockito.stubbing.Answer<Integer> reads(long[]... entries) {
        return call -> {
            CompletionBatch batch = call.getArgument(0);
            for (int i = 0; i < entries.length; i++) {
                long[] e = entries[i];
                batch.set(i, e[0], e[1], e[2], e[3], e[4]);
            }
            batch.setCount(entries.length);
            return entries.length;
        };
    }
}
