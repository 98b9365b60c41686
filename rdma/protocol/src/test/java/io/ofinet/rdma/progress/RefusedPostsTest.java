package io.ofinet.rdma.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.rdma.error.ErrorCategory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Posts a provider refuses ({@code -FI_EAGAIN}): queued per peer in order, retried with back-off,
 * and a refusing peer condemned after the bound, or sooner on evidence, without delaying others.
 */
class RefusedPostsTest {
    private static final long TIMEOUT_NANOS = 10_000_000_000L;
    private final List<String> log = new ArrayList<>();
    private final PeerQueue peer = new PeerQueue("peer 1");
    /** A completion queue with nothing to report, unless a case says otherwise ({@link #completeAll}). */
    private final CompletionQueue cq = mock(CompletionQueue.class);

    RefusedPostsTest() throws Exception {
        when(cq.read(any(), anyInt())).thenReturn(0);
    }

    /** An engine on {@link #cq} that condemns a peer refusing every post for {@code boundNanos}. */
    private ProgressEngine engine(long boundNanos) {
        return new ProgressEngine(List.of(cq), 4, boundNanos, (r, f, l, d) -> { });
    }

    @Test
    void refusedPostsWaitAndAreRetriedInOrderBeforeNewWorkToTheSamePeer() throws Exception {
        ProgressEngine engine = engine(TIMEOUT_NANOS);
        ScriptedOp first = new ScriptedOp("first", log, Endpoint.AGAIN, Endpoint.AGAIN, Endpoint.POSTED);
        ScriptedOp second = new ScriptedOp("second", log, Endpoint.POSTED);
        ScriptedOp third = new ScriptedOp("third", log, Endpoint.POSTED);
        for (ScriptedOp op : List.of(first, second, third)) {
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
    void postsRefusedWithNothingInFlightAreARefusedReconnectOnlyWhereConnectionsAreMadeOnDemand() throws Exception {
        long evidence = 50_000_000L;
        ProgressEngine engine = engine(TIMEOUT_NANOS);
        PeerQueue rxm = new PeerQueue("127.0.0.1:5 on control rail 0", true, evidence);
        PeerQueue plain = new PeerQueue("fi_shm://7:0:1 on control rail 0", true, 0);
        PeerQueue fresh = new PeerQueue("127.0.0.1:6 on control rail 0", true, evidence);
        for (PeerQueue q : List.of(rxm, plain)) {
            // A first post is accepted: there was a connection. Later ones are all refused.
            ScriptedOp first = new ScriptedOp("first", log, Endpoint.POSTED);
            engine.register(first);
            engine.submit(first, q);
            completeAll(engine, first);
            ScriptedOp probe = new ScriptedOp("probe", log, Endpoint.AGAIN);
            engine.register(probe);
            engine.submit(probe, q);
        }
        ScriptedOp neverAccepted = new ScriptedOp("connect", log, Endpoint.AGAIN);
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
    void aNewPeerTheProviderCannotReachIsCondemnedNamingWhyAndOneItReachedIsNot() throws Exception {
        ProgressEngine engine = engine(TIMEOUT_NANOS);
        String why = "its shm region /dev/shm/7:0:1 is gone";
        List<String> asked = new ArrayList<>();
        PeerQueue unreachable = new PeerQueue("fi_shm://7:0:1 on control rail 0", true, 0).reachability(() -> {
            asked.add("new");
            return why;
        });
        PeerQueue reached = new PeerQueue("fi_shm://8:0:1 on control rail 0", true, 0).reachability(() -> {
            asked.add("reached");
            return "its shm region /dev/shm/8:0:1 is gone";
        });
        ScriptedOp first = new ScriptedOp("first", log, Endpoint.POSTED);
        engine.register(first);
        engine.submit(first, reached);
        completeAll(engine, first);
        ScriptedOp busy = new ScriptedOp("busy", log, Endpoint.AGAIN);
        ScriptedOp connect = new ScriptedOp("connect", log, Endpoint.AGAIN);
        engine.register(busy);
        engine.register(connect);
        engine.submit(busy, reached);
        long start = System.nanoTime();
        engine.submit(connect, unreachable);
        while (unreachable.condemned() == null && System.nanoTime() - start < 2 * PeerQueue.UNREACHABLE_CHECK_NANOS) {
            engine.progress();
            assertTrue(asked.isEmpty() || System.nanoTime() - start >= PeerQueue.UNREACHABLE_CHECK_NANOS,
                    "not asked before " + PeerQueue.UNREACHABLE_CHECK_NANOS + " ns of refusals");
        }
        long until = System.nanoTime() + 2 * PeerQueue.UNREACHABLE_CHECK_NANOS;
        while (System.nanoTime() < until) {
            engine.progress();
        }
        assertTrue(unreachable.condemned() != null, "condemned once the provider says why");
        assertTrue(unreachable.condemned().getMessage().endsWith(why + "; it is condemned"),
                unreachable.condemned().getMessage());
        assertEquals(List.of("new"), asked, "a peer a post reached is not asked: its refusals are the peer being busy");
        assertEquals(null, reached.condemned());
    }

    @Test
    void postsRefusedWhileEarlierOnesAreInFlightAreNoEvidence() throws Exception {
        long evidence = 20_000_000L;
        ProgressEngine engine = engine(TIMEOUT_NANOS);
        PeerQueue stopped = new PeerQueue("127.0.0.1:5 on data rail 0", true, evidence);
        ScriptedOp stuck = new ScriptedOp("stuck", log, Endpoint.POSTED);
        ScriptedOp refused = new ScriptedOp("refused", log, Endpoint.AGAIN);
        submit(engine, stopped, stuck, refused);
        long until = System.nanoTime() + 5 * evidence;
        while (System.nanoTime() < until) {
            engine.progress();
        }
        assertEquals(1, stopped.inFlight());
        assertEquals(null, stopped.condemned(), "a peer that does not take our writes is slow, not gone");
    }

    @Test
    void aRefusingPeerDelaysOnlyItsOwnPosts() throws Exception {
        ProgressEngine engine = engine(TIMEOUT_NANOS);
        PeerQueue other = new PeerQueue("peer 2");
        ScriptedOp dead = new ScriptedOp("to-dead", log, Endpoint.AGAIN);
        ScriptedOp deadLater = new ScriptedOp("to-dead-later", log, Endpoint.POSTED);
        ScriptedOp healthy = new ScriptedOp("to-healthy", log, Endpoint.POSTED);
        for (ScriptedOp op : List.of(dead, deadLater, healthy)) {
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
        long bound = 200_000_000L;
        ProgressEngine engine = engine(bound);
        List<String> told = new ArrayList<>();
        peer.listen(cause -> told.add(cause.getMessage()));
        ScriptedOp refused = new ScriptedOp("refused", log, Endpoint.AGAIN);
        ScriptedOp behind = new ScriptedOp("behind", log, Endpoint.POSTED);
        submit(engine, peer, refused, behind);
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
        ScriptedOp late = new ScriptedOp("late", log, Endpoint.POSTED);
        engine.register(late);
        engine.submit(late, peer);
        assertEquals(0, late.posts);
        assertEquals("failed late: " + peer.condemned().getMessage(), log.get(log.size() - 1));
    }

    @Test
    void anAcceptedPostRestartsTheRefusalClock() throws Exception {
        long bound = TestTime.nanos(1000);
        ProgressEngine engine = engine(bound);
        // A peer that accepts one post in three: slow, never silent, never condemned. The steps are
        // a fortieth of the bound apart (an op's accepted post and the next op's first refusal share
        // one), so the 40 ops' refusals last about two bounds in all, and accepted posts come a
        // twentieth of a bound apart (a stall of a machine under load would have to last most of a
        // second to be taken for a silent peer).
        long stepMillis = bound / 40 / 1_000_000L;
        List<ScriptedOp> ops = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ScriptedOp op = new ScriptedOp("op" + i, log, Endpoint.AGAIN, Endpoint.AGAIN, Endpoint.POSTED);
            engine.register(op);
            ops.add(op);
            engine.submit(op, peer);
        }
        long deadline = System.nanoTime() + 20 * bound;
        long start = System.nanoTime();
        while (engine.pending() > 0 && System.nanoTime() < deadline) {
            engine.progress();
            Thread.sleep(stepMillis);
        }
        assertEquals(0, engine.pending());
        assertTrue(System.nanoTime() - start > bound, "the refusals lasted longer than the bound in all");
        assertEquals(null, peer.condemned());
    }

    /** Registers each of {@code ops} with the engine and submits it to {@code queue}, in order. */
    private static void submit(ProgressEngine engine, PeerQueue queue, ScriptedOp... ops) {
        for (ScriptedOp op : ops) {
            engine.register(op);
            engine.submit(op, queue);
        }
    }

    /** Makes the queue report one completion for each of {@code ops}, then reads it. */
    private void completeAll(ProgressEngine engine, ScriptedOp... ops) throws Exception {
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
}
