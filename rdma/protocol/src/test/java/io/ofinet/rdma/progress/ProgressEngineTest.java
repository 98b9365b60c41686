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
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.ErrorCategory;
import io.ofinet.rdma.RdmaException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressEngineTest {
    /** An operation that records what happens to it; posts answer from a script. */
    static final class Op extends Operation {
        final String name;
        final List<String> log;
        int[] answers;
        int posts;

        Op(String name, List<String> log, int... answers) {
            this.name = name;
            this.log = log;
            this.answers = answers;
        }

        @Override
        protected int post() throws FabricException {
            int answer = answers[Math.min(posts++, answers.length - 1)];
            log.add("post " + name + (answer == Endpoint.AGAIN ? " again" : ""));
            if (answer == -FiErrno.FI_EIO) {
                throw new FabricException("fi_send (provider mock)", FiErrno.FI_EIO, "I/O error");
            }
            return answer;
        }

        @Override
        protected void completed(int rail, long flags, long len, long data) {
            log.add("done " + name + " rail " + rail + " len " + len);
        }

        @Override
        protected void failed(RdmaException cause) {
            log.add("failed " + name + ": " + cause.getMessage());
        }

        @Override
        protected String describe() {
            return name;
        }
    }

    private final List<String> log = new ArrayList<>();

    @Test
    void readsEachQueueInBatchesOfTheReadCount() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        ProgressEngine engine = new ProgressEngine(List.of(cq, cq), 4, (r, f, l, d) -> { });
        engine.progress();
        verify(cq, org.mockito.Mockito.times(2)).read(any(CompletionBatch.class), eq(4));
    }

    @Test
    void completionsGoToTheirOperationAndRemoteDataToTheHandler() throws Exception {
        Op a = new Op("a", log, Endpoint.POSTED);
        Op b = new Op("b", log, Endpoint.POSTED);
        List<Long> remote = new ArrayList<>();
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (rail, flags, len, data) -> remote.add(data));
        engine.register(a);
        engine.register(b);
        when(cq.read(any(), anyInt())).thenAnswer(call -> {
            CompletionBatch batch = call.getArgument(0);
            batch.set(0, b.context(), 0, 10, 0, 0);
            batch.set(1, 0, 0, 0, 0, 77);
            batch.set(2, a.context(), 0, 20, 0, 0);
            batch.setCount(3);
            return 3;
        });
        assertEquals(3, engine.progress());
        assertEquals(List.of("done b rail 0 len 10", "done a rail 0 len 20"), log);
        assertEquals(List.of(77L), remote);
    }

    @Test
    void refusedPostsWaitAndAreRetriedInOrderBeforeNewWork() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (r, f, l, d) -> { });
        Op first = new Op("first", log, Endpoint.AGAIN, Endpoint.AGAIN, Endpoint.POSTED);
        Op second = new Op("second", log, Endpoint.POSTED);
        Op third = new Op("third", log, Endpoint.POSTED);
        for (Op op : List.of(first, second, third)) {
            engine.register(op);
        }
        engine.submit(first);
        engine.submit(second); // must not overtake first
        assertEquals(2, engine.pending());
        engine.progress(); // first refused again: nothing behind it is tried
        assertEquals(List.of("post first again", "post first again"), log);
        engine.submit(third);
        engine.progress();
        assertEquals(List.of("post first again", "post first again", "post first", "post second", "post third"), log);
        assertEquals(0, engine.pending());
    }

    @Test
    void aFailedPostFailsItsOperation() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (r, f, l, d) -> { });
        Op broken = new Op("handshake send", log, -FiErrno.FI_EIO);
        engine.register(broken);
        engine.submit(broken);
        assertEquals(List.of("post handshake send", "failed handshake send: handshake send: fi_send (provider mock)"
                + " failed: FI_EIO (I/O error)"), log);
    }

    @Test
    void anErrorEntryFailsTheRightOperation() throws Exception {
        Op a = new Op("a", log, Endpoint.POSTED);
        Op b = new Op("b", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (r, f, l, d) -> { });
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

    @Test
    void anUnknownContextIsAnInternalError() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (r, f, l, d) -> { });
        when(cq.read(any(), anyInt())).thenAnswer(call -> {
            CompletionBatch batch = call.getArgument(0);
            batch.set(0, 99, 0, 0, 0, 0);
            batch.setCount(1);
            return 1;
        });
        RdmaException e = assertThrows(RdmaException.class, engine::progress);
        assertEquals(ErrorCategory.INTERNAL, e.category());
        assertTrue(e.getMessage().contains("unknown context 99"));
    }

    @Test
    void aRemoteWriteWithAStaleContextGoesToTheRemoteHandlerNotToAnOperation() throws Exception {
        // libfabric 1.17's shm puts a stale msg_id into the context of a remote write's completion.
        Op posted = new Op("posted receive", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        List<Long> remote = new ArrayList<>();
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, (rail, flags, len, data) -> remote.add(data));
        engine.register(posted);
        when(cq.read(any(), anyInt())).thenAnswer(call -> {
            CompletionBatch batch = call.getArgument(0);
            batch.set(0, posted.context(), io.ofinet.fabric.Fi.RMA | io.ofinet.fabric.Fi.REMOTE_WRITE
                    | io.ofinet.fabric.Fi.REMOTE_CQ_DATA, 0, 0, 42);
            batch.set(1, 12345, io.ofinet.fabric.Fi.RMA | io.ofinet.fabric.Fi.REMOTE_WRITE
                    | io.ofinet.fabric.Fi.REMOTE_CQ_DATA, 0, 0, 43);
            batch.setCount(2);
            return 2;
        });
        assertEquals(2, engine.progress());
        assertEquals(List.of(42L, 43L), remote);
        assertEquals(List.of(), log);
    }
}
