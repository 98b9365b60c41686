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
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
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
        Op a = new Op("a", log, Endpoint.POSTED);
        Op b = new Op("b", log, Endpoint.POSTED);
        List<Long> remote = new ArrayList<>();
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (rail, flags, len, data) -> remote.add(data));
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
    void refusedPostsWaitAndAreRetriedInOrderBeforeNewWorkToTheSamePeer() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        Op first = new Op("first", log, Endpoint.AGAIN, Endpoint.AGAIN, Endpoint.POSTED);
        Op second = new Op("second", log, Endpoint.POSTED);
        Op third = new Op("third", log, Endpoint.POSTED);
        for (Op op : List.of(first, second, third)) {
            engine.register(op);
        }
        engine.submit(first, peer);
        engine.submit(second, peer); // must not overtake first
        assertEquals(2, engine.pending());
        engine.progress(); // first refused again: nothing behind it is tried
        assertEquals(List.of("post first again", "post first again"), log);
        engine.submit(third, peer);
        engine.progress();
        assertEquals(List.of("post first again", "post first again", "post first", "post second", "post third"), log);
        assertEquals(0, engine.pending());
        assertEquals(2, engine.refusedPosts(), "each refusal counted once, at the first post and at the retry");
    }

    @Test
    void aFailedPostFailsItsOperation() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        Op broken = new Op("handshake send", log, -FiErrno.FI_EIO);
        engine.register(broken);
        engine.submit(broken, peer);
        assertEquals(List.of("post handshake send", "failed handshake send: handshake send: fi_send (provider mock)"
                + " failed: FI_EIO (I/O error)"), log);
    }

    @Test
    void anErrorEntryFailsTheRightOperation() throws Exception {
        Op a = new Op("a", log, Endpoint.POSTED);
        Op b = new Op("b", log, Endpoint.POSTED);
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

    @Test
    void anUnreachablePeerIsCondemnedAResetConnectionOnlyFailsItsOperations() throws Exception {
        PeerQueue remote = new PeerQueue("127.0.0.1:5 on data rail 0", true, 0);
        PeerQueue own = new PeerQueue("this endpoint on data rail 0");
        Op reset = new Op("reset", log, Endpoint.POSTED);
        Op write = new Op("write", log, Endpoint.POSTED);
        Op recv = new Op("recv", log, Endpoint.POSTED);
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
        Op[] failing = {recv, reset, write};
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
    void postsRefusedWithNothingInFlightAreARefusedReconnectOnlyWhereConnectionsAreMadeOnDemand() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        long evidence = 50_000_000L;
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        PeerQueue rxm = new PeerQueue("127.0.0.1:5 on control rail 0", true, evidence);
        PeerQueue plain = new PeerQueue("fi_shm://7:0:1 on control rail 0", true, 0);
        PeerQueue fresh = new PeerQueue("127.0.0.1:6 on control rail 0", true, evidence);
        for (PeerQueue q : List.of(rxm, plain)) {
            // A first post is accepted: there was a connection. Later ones are all refused.
            Op first = new Op("first", log, Endpoint.POSTED);
            engine.register(first);
            engine.submit(first, q);
            completeAll(engine, cq, first);
            Op probe = new Op("probe", log, Endpoint.AGAIN);
            engine.register(probe);
            engine.submit(probe, q);
        }
        Op neverAccepted = new Op("connect", log, Endpoint.AGAIN);
        engine.register(neverAccepted);
        engine.submit(neverAccepted, fresh);
        long until = System.nanoTime() + 6 * evidence;
        while (System.nanoTime() < until) {
            engine.progress();
        }
        assertTrue(rxm.condemned() != null, "rxm: refused with nothing in flight for longer than the evidence bound");
        assertTrue(rxm.condemned().getMessage().contains("with nothing in flight to it: its address refuses"
                + " connections"), rxm.condemned().getMessage());
        assertEquals(null, plain.condemned(), "elsewhere refusals are only refusals, bounded by the timeout");
        assertEquals(null, fresh.condemned(), "a first connection that is slow to come is no evidence");
    }

    @Test
    void postsRefusedWhileEarlierOnesAreInFlightAreNoEvidence() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        long evidence = 20_000_000L;
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        PeerQueue stopped = new PeerQueue("127.0.0.1:5 on data rail 0", true, evidence);
        Op stuck = new Op("stuck", log, Endpoint.POSTED);
        Op refused = new Op("refused", log, Endpoint.AGAIN);
        engine.register(stuck);
        engine.register(refused);
        engine.submit(stuck, stopped);
        engine.submit(refused, stopped);
        long until = System.nanoTime() + 5 * evidence;
        while (System.nanoTime() < until) {
            engine.progress();
        }
        assertEquals(1, stopped.inFlight());
        assertEquals(null, stopped.condemned(), "a peer that does not take our writes is slow, not gone");
    }

    /** Makes the queue report one completion for each of {@code ops}, then reads it. */
    private static void completeAll(ProgressEngine engine, CompletionQueue cq, Op... ops) throws Exception {
        when(cq.read(any(), anyInt())).thenAnswer(call -> {
            CompletionBatch batch = call.getArgument(0);
            for (int i = 0; i < ops.length; i++) {
                batch.set(i, ops[i].context(), 0, 0, 0, 0);
            }
            batch.setCount(ops.length);
            return ops.length;
        }).thenReturn(0);
        engine.progress();
    }

    @Test
    void aFailedRemoteWriteIsCountedAndTheBatchGoesOn() throws Exception {
        Op a = new Op("a", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        engine.register(a);
        when(cq.read(any(), anyInt())).thenReturn(CompletionQueue.ERROR_AVAILABLE).thenAnswer(call -> {
            CompletionBatch batch = call.getArgument(0);
            batch.set(0, a.context(), 0, 5, 0, 0);
            batch.setCount(1);
            return 1;
        });
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
    void aRefusingPeerDelaysOnlyItsOwnPosts() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS, (r, f, l, d) -> { });
        PeerQueue other = new PeerQueue("peer 2");
        Op dead = new Op("to-dead", log, Endpoint.AGAIN);
        Op deadLater = new Op("to-dead-later", log, Endpoint.POSTED);
        Op healthy = new Op("to-healthy", log, Endpoint.POSTED);
        for (Op op : List.of(dead, deadLater, healthy)) {
            engine.register(op);
        }
        engine.submit(dead, peer);
        engine.submit(deadLater, peer); // waits behind the refused post to its own peer
        engine.submit(healthy, other); // goes out at once
        assertEquals(List.of("post to-dead again", "post to-healthy"), log);
        assertEquals(2, engine.pending());
        assertEquals(2, peer.pending());
        assertEquals(0, other.pending());
        assertEquals(1, peer.refusals());
    }

    @Test
    void retriesToARefusingPeerBackOffAndItIsCondemnedAfterTheBound() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        long bound = 200_000_000L;
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, bound, (r, f, l, d) -> { });
        List<String> told = new ArrayList<>();
        peer.listen(cause -> told.add(cause.getMessage()));
        Op refused = new Op("refused", log, Endpoint.AGAIN);
        Op behind = new Op("behind", log, Endpoint.POSTED);
        engine.register(refused);
        engine.register(behind);
        engine.submit(refused, peer);
        engine.submit(behind, peer);
        long start = System.nanoTime();
        int steps = 0;
        while (peer.condemned() == null) {
            engine.progress();
            steps++;
            assertTrue(System.nanoTime() - start < 5 * bound, "not condemned within 5 × the bound");
        }
        long posts = refused.posts;
        // Back-off: after the first millisecond of refusals, retries come at most every refusal-time / 8,
        // so over the bound far fewer posts are tried than steps are taken.
        assertTrue(posts < steps / 10, posts + " posts in " + steps + " steps: retries do not back off");
        assertEquals(ErrorCategory.REMOTE, peer.condemned().category());
        assertTrue(peer.condemned().getMessage().startsWith("peer peer 1 refused every post (-FI_EAGAIN) for"),
                peer.condemned().getMessage());
        assertTrue(log.contains("failed refused: " + peer.condemned().getMessage()), log.toString());
        assertTrue(log.contains("failed behind: " + peer.condemned().getMessage()), log.toString());
        assertEquals(List.of(peer.condemned().getMessage()), told);
        assertEquals(0, engine.pending());
        // Later posts to a condemned peer fail at once, without reaching the provider.
        Op late = new Op("late", log, Endpoint.POSTED);
        engine.register(late);
        engine.submit(late, peer);
        assertEquals(0, late.posts);
        assertEquals("failed late: " + peer.condemned().getMessage(), log.get(log.size() - 1));
    }

    @Test
    void anAcceptedPostRestartsTheRefusalClock() throws Exception {
        CompletionQueue cq = mock(CompletionQueue.class);
        when(cq.read(any(), anyInt())).thenReturn(0);
        long bound = 50_000_000L;
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, bound, (r, f, l, d) -> { });
        // A peer that accepts one post in three: slow, never silent, never condemned.
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Op op = new Op("op" + i, log, Endpoint.AGAIN, Endpoint.AGAIN, Endpoint.POSTED);
            engine.register(op);
            ops.add(op);
            engine.submit(op, peer);
        }
        long deadline = System.nanoTime() + 20 * bound;
        while (engine.pending() > 0 && System.nanoTime() < deadline) {
            engine.progress();
            Thread.sleep(1);
        }
        assertEquals(0, engine.pending());
        assertEquals(null, peer.condemned());
    }

    @Test
    void aRemoteWriteWithAStaleContextGoesToTheRemoteHandlerNotToAnOperation() throws Exception {
        // libfabric 1.17's shm puts a stale msg_id into the context of a remote write's completion.
        Op posted = new Op("posted receive", log, Endpoint.POSTED);
        CompletionQueue cq = mock(CompletionQueue.class);
        List<Long> remote = new ArrayList<>();
        ProgressEngine engine = new ProgressEngine(List.of(cq), 4, TIMEOUT_NANOS,
                (rail, flags, len, data) -> remote.add(data));
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
