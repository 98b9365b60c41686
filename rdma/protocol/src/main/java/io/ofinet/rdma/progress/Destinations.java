package io.ofinet.rdma.progress;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.ArrayDeque;

/**
 * The progress engine's posts to their destinations, a {@link PeerQueue} each. Posts refused with
 * -FI_EAGAIN wait in the queue of their destination and are retried there in order, before
 * anything newer to that destination: a refusing peer delays only its own posts. Retries back off
 * once a destination has refused for a millisecond; a destination that refuses for longer than
 * {@code refusalTimeoutNanos} is condemned, and so is one whose refusals are evidence of a refused
 * reconnect ({@link PeerQueue#refusedReconnect}), one the provider shows it cannot reach
 * ({@link PeerQueue#unreachable}), or to which the provider failed an operation as unreachable (at
 * its post, or in an error completion): each is the provider's word that the peer is gone.
 *
 * <p>Held by its engine, and like it not thread-safe.
 */
final class Destinations {
    /** Refusals within this spell are retried at every step: a full queue usually drains at once. */
    static final long EAGER_RETRY_NANOS = 1_000_000L;
    /** The longest pause between two retries to a refusing destination. */
    static final long MAX_BACKOFF_NANOS = 100_000_000L;
    /** A refusal spell this long is logged, once. */
    static final long REPORT_NANOS = 1_000_000_000L;
    /** One log for the engine, whichever class writes it. */
    private static final System.Logger LOG = System.getLogger(ProgressEngine.class.getName());

    private final QuietRails quiet;
    private final long refusalTimeoutNanos;
    /** Destinations with waiting posts, each once. */
    private final ArrayDeque<PeerQueue> active = new ArrayDeque<>();
    private int pendingTotal;
    private long refusedPosts;
    private long condemnedPeers;

    /**
     * @param quiet the engine's quiet rails, told of every post to a peer
     * @param refusalTimeoutNanos how long a destination may refuse every post before it is condemned
     */
    Destinations(QuietRails quiet, long refusalTimeoutNanos) {
        this.quiet = quiet;
        this.refusalTimeoutNanos = refusalTimeoutNanos;
    }

    long refusedPosts() {
        return refusedPosts;
    }

    long condemnedPeers() {
        return condemnedPeers;
    }

    int pending() {
        return pendingTotal;
    }

    /** As {@link ProgressEngine#submit}. */
    void submit(Operation op, PeerQueue peer) {
        if (peer.condemned != null) {
            op.failed(peer.condemned);
            return;
        }
        if (!peer.pending.isEmpty()) {
            enqueue(op, peer);
            return;
        }
        if (tryPost(op, peer) == Endpoint.AGAIN) {
            peer.refusals++;
            refusedPosts++;
            peer.refusedSinceNanos = System.nanoTime();
            peer.nextRetryNanos = 0;
            enqueue(op, peer);
        }
    }

    private void enqueue(Operation op, PeerQueue peer) {
        peer.pending.add(op);
        pendingTotal++;
        if (!peer.active) {
            peer.active = true;
            active.add(peer);
        }
    }

    /** Posts {@code op} to {@code peer}: POSTED (also when posting failed the operation) or AGAIN. */
    private int tryPost(Operation op, PeerQueue peer) {
        int result;
        try {
            result = op.post();
        } catch (FabricException e) {
            String seen = op.describe() + ": " + e.getMessage();
            op.failed(new RdmaException(ErrorCategory.SYSTEM, seen, e));
            if (peer.remote() && ProgressEngine.unreachable(e.errno())) {
                // The provider says at the post that the peer cannot be reached, as a completion may.
                condemn(peer, new RdmaException(ErrorCategory.REMOTE, "peer " + peer.name() + ": " + seen));
            }
            return Endpoint.POSTED;
        }
        if (result == Endpoint.POSTED) {
            op.inFlightTo = peer;
            peer.inFlight++;
            peer.accepted = true;
            quiet.posted(peer);
        }
        return result;
    }

    /** The retries with which each step of {@link ProgressEngine#progress} begins. */
    void retry() {
        if (!active.isEmpty()) {
            retry(System.nanoTime());
        }
    }

    private void retry(long now) {
        for (int n = active.size(); n > 0; n--) {
            PeerQueue peer = active.poll();
            if (peer.pending.isEmpty()) {
                peer.active = false;
                continue;
            }
            if (now - peer.nextRetryNanos < 0) {
                active.add(peer);
                continue;
            }
            boolean accepted = false;
            for (int budget = peer.pending.size(); budget > 0; budget--) {
                if (tryPost(peer.pending.peek(), peer) == Endpoint.AGAIN) {
                    peer.refusals++;
                    refusedPosts++;
                    break;
                }
                peer.pending.poll();
                pendingTotal--;
                accepted = true;
            }
            if (peer.pending.isEmpty()) {
                peer.active = false;
                continue;
            }
            if (accepted) {
                peer.refusedSinceNanos = now;
                peer.reported = false;
            }
            long refusing = now - peer.refusedSinceNanos;
            if (peer.refusedReconnect(refusing)) {
                condemn(peer, new RdmaException(ErrorCategory.REMOTE, "peer " + peer.name() + " refused every post"
                        + " (-FI_EAGAIN) for " + refusing / 1_000_000 + " ms with nothing in flight to it: its"
                        + " address refuses connections; it is condemned"));
                continue;
            }
            String unreachable = peer.unreachable(refusing);
            if (unreachable != null) {
                condemn(peer, new RdmaException(ErrorCategory.REMOTE, "peer " + peer.name() + " refused every post"
                        + " (-FI_EAGAIN) for " + refusing / 1_000_000 + " ms: " + unreachable + "; it is condemned"));
                continue;
            }
            if (refusing > refusalTimeoutNanos) {
                condemn(peer, new RdmaException(ErrorCategory.REMOTE, "peer " + peer.name() + " refused every post"
                        + " (-FI_EAGAIN) for " + refusing / 1_000_000 + " ms (postRetryTimeoutMs); it is condemned"));
                continue;
            }
            if (refusing > REPORT_NANOS && !peer.reported) {
                peer.reported = true;
                LOG.log(System.Logger.Level.WARNING, "posts to {0} refused (-FI_EAGAIN) for {1} ms: {2} waiting ({3});"
                        + " retrying with back-off", peer.name(), refusing / 1_000_000, peer.pending.size(),
                        peer.pending.peek().describe());
            }
            peer.nextRetryNanos = refusing < EAGER_RETRY_NANOS ? 0 : now + Math.min(refusing / 8, MAX_BACKOFF_NANOS);
            active.add(peer);
        }
    }

    /** As {@link ProgressEngine#condemn}. */
    void condemn(PeerQueue peer, RdmaException cause) {
        if (peer.condemned != null) {
            return;
        }
        peer.condemned = cause;
        condemnedPeers++;
        for (Operation op = peer.pending.poll(); op != null; op = peer.pending.poll()) {
            pendingTotal--;
            op.failed(cause);
        }
        peer.notifyCondemned(cause);
    }
}
