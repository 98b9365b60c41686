package io.ofinet.plugin.ofi;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One rank of the three-JVM fault test: {@code TrioPeer hub|leaf1|leaf2 DIR MAX_BYTES MODE EXPECT}.
 *
 * <p>The hub connects to both leaves and accepts a connection from each, all from its main thread,
 * so every communicator of the hub lives on one endpoint. Each pair streams verified messages both
 * ways ({@link MessageStream}), driven round-robin from the hub's one thread; with MODE
 * {@code waiting} the hub and leaf1 only post receives to each other and wait on them. The test
 * then does something to leaf1 (kills it, tells it to exit without closing through file
 * {@code leaf1.exit}, stops it for a while) and writes the moment into {@code gone}; the hub keeps
 * going for {@link #AFTER_NANOS} and reports the longest time without a verified message from
 * leaf2 after that moment, and what became of its requests with leaf1. EXPECT is what must become
 * of them: {@code dead} (every outstanding one fails with REMOTE_ERROR within
 * {@link #DEAD_WITHIN_NANOS}), {@code timeout} (they fail, naming peerTimeoutMs) or {@code alive}
 * (none fails).
 */
public final class TrioPeer {
    static final long AFTER_NANOS = Duration.ofSeconds(8).toNanos();
    /*
     * Not scaled by the tests' time factor: each bound is set by what it rules out within the 8 s
     * the hub watches. A gap of 3 s is shorter than the 6 s that leaf1 stays stopped in the timeout
     * rows, so leaf2's stream cannot have waited for it; 5 s is within the 8 s, and far below
     * peerTimeoutMs (30 s), which a condemnation on evidence must not wait for.
     */
    static final long DEAD_WITHIN_NANOS = Duration.ofSeconds(5).toNanos();
    /** The longest time without a verified message from leaf2 after leaf1 went. */
    static final long LONGEST_GAP_NANOS = Duration.ofSeconds(3).toNanos();
    private static final long DEADLINE = System.nanoTime() + Duration.ofSeconds(150).toNanos();

    private TrioPeer() {
    }

    public static void main(String[] args) throws Exception {
        String me = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        int maxBytes = Integer.parseInt(args[2]);
        boolean waiting = args[3].equals("waiting");
        String expect = args[4];
        NetPlugin p = NetPlugins.load();
        p.init();
        Handles.ListenComm listen = p.listen(0);
        exchange.publish(me + ".handle", listen.handle());
        if (me.equals("hub")) {
            hub(p, listen, exchange, maxBytes, waiting, expect);
        } else {
            leaf(p, listen, exchange, maxBytes, me, !(waiting && me.equals("leaf1")));
        }
    }

    private static void checkDeadline(String what) {
        if (System.nanoTime() > DEADLINE) {
            System.out.println("FAILED: " + what + " did not finish in time");
            System.exit(2);
        }
    }

    /** Connects to the other side and accepts its connection, in either order. */
    private static MessageStream pair(NetPlugin p, Handles.ListenComm listen, byte[] handle, int maxBytes, String me,
            String peer, boolean sending) throws NetException {
        PeerPair pair = PeerPair.connect(p, listen, handle, () -> checkDeadline("connecting " + me + " and " + peer));
        return new MessageStream(p, pair.send(), pair.recv(), maxBytes, me, peer, sending);
    }

    private static void hub(NetPlugin p, Handles.ListenComm listen, AddressExchange exchange, int maxBytes,
            boolean waiting, String expect) throws Exception {
        MessageStream[] streams = new MessageStream[3];
        for (int leaf = 1; leaf <= 2; leaf++) {
            byte[] handle = exchange.await("leaf" + leaf + ".handle", Duration.ofSeconds(60));
            exchange.publish("turn." + leaf, "1");
            streams[leaf] = pair(p, listen, handle, maxBytes, "hub", "leaf" + leaf, !(waiting && leaf == 1));
        }
        System.out.println("hub: connected to both leaves on one endpoint");
        long start = System.nanoTime();
        boolean announced = false;
        long goneNanos = 0;
        long lastFromLeaf2 = 0;
        long longestGapNanos = 0;
        long afterGone = 0;
        long leaf1FailedNanos = 0;
        long leaf1AllFailedNanos = 0;
        String leaf1Failure = null;
        long nextLook = 0;
        while (goneNanos == 0 || System.nanoTime() - goneNanos < AFTER_NANOS) {
            if (leaf1Failure == null) {
                try {
                    streams[1].step();
                } catch (NetException e) {
                    leaf1Failure = e.result() + ": " + e.getMessage();
                    leaf1FailedNanos = System.nanoTime();
                }
            }
            if (leaf1Failure != null && leaf1AllFailedNanos == 0 && streams[1].pendingAfterFailure() == 0) {
                leaf1AllFailedNanos = System.nanoTime();
            }
            if (streams[2].step() > 0 && goneNanos != 0) {
                long now = streams[2].lastReceivedNanos;
                longestGapNanos = Math.max(longestGapNanos, now - lastFromLeaf2);
                lastFromLeaf2 = now;
                afterGone++;
            }
            long now = System.nanoTime();
            if (now > nextLook) {
                nextLook = now + 50_000_000L;
                if (!announced && now - start > 2_000_000_000L) {
                    exchange.publish("hub.streaming", "1");
                    announced = true;
                }
                if (goneNanos == 0 && exchange.has("gone")) {
                    // The test wrote the wall-clock moment leaf1 went; measure from there on this clock.
                    long goneMillis = Long.parseLong(new String(exchange.await("gone", Duration.ofSeconds(1)),
                            StandardCharsets.UTF_8).trim());
                    goneNanos = now - Math.max(0, System.currentTimeMillis() - goneMillis) * 1_000_000L;
                    lastFromLeaf2 = goneNanos;
                }
            }
            checkDeadline("the hub's streams");
        }
        long end = System.nanoTime();
        longestGapNanos = Math.max(longestGapNanos, end - lastFromLeaf2);
        exchange.publish("hub.stop", "1");
        System.out.println("hub: leaf2 stream: " + afterGone + " verified messages in the "
                + AFTER_NANOS / 1_000_000_000L + " s after leaf1 went; longest gap " + longestGapNanos / 1_000_000
                + " ms");
        System.out.println("hub: leaf1 stream (" + (waiting ? "only waiting on a receive" : "posting") + "): "
                + (leaf1Failure == null ? "no failure; " + streams[1].received() + " messages received in all, the"
                        + " latest " + (end - streams[1].lastReceivedNanos) / 1_000_000 + " ms before the end"
                : "first failure " + (leaf1FailedNanos - goneNanos) / 1_000_000 + " ms after leaf1 went, every"
                        + " outstanding request failed " + (leaf1AllFailedNanos == 0 ? "never"
                                : (leaf1AllFailedNanos - goneNanos) / 1_000_000 + " ms after") + ": " + leaf1Failure));
        String wrong = null;
        if (longestGapNanos > LONGEST_GAP_NANOS || afterGone == 0) {
            wrong = "the leaf2 stream stalled after leaf1 went";
        } else if (expect.equals("alive")) {
            if (leaf1Failure != null) {
                wrong = "leaf1's requests failed although it only paused";
            } else if (!waiting && streams[1].lastReceivedNanos < end - 2_000_000_000L) {
                wrong = "leaf1's stream did not resume";
            }
        } else if (leaf1Failure == null || leaf1AllFailedNanos == 0) {
            wrong = "leaf1's outstanding requests did not all fail";
        } else if (!leaf1Failure.startsWith("REMOTE_ERROR")) {
            wrong = "leaf1's requests failed with another code";
        } else if (expect.equals("dead") && leaf1AllFailedNanos - goneNanos > DEAD_WITHIN_NANOS) {
            wrong = "leaf1 was condemned later than " + DEAD_WITHIN_NANOS / 1_000_000 + " ms after it went";
        } else if (expect.equals("timeout") && !leaf1Failure.contains("(peerTimeoutMs)")) {
            wrong = "leaf1's requests failed for another reason than the peer timeout";
        }
        System.out.println(wrong == null ? "hub: all checks passed" : "FAILED: " + wrong);
        // No orderly close: closing with dead peers is the close tests' business.
        System.exit(wrong == null ? 0 : 1);
    }

    private static void leaf(NetPlugin p, Handles.ListenComm listen, AddressExchange exchange, int maxBytes,
            String me, boolean sending) throws Exception {
        byte[] handle = exchange.await("hub.handle", Duration.ofSeconds(60));
        exchange.await("turn." + me.substring(4), Duration.ofSeconds(60));
        MessageStream stream = pair(p, listen, handle, maxBytes, me, "hub", sending);
        System.out.println(me + ": connected");
        long nextLook = 0;
        while (true) {
            try {
                stream.step();
            } catch (NetException e) {
                if (!exchange.has("hub.stop")) {
                    throw e;
                }
                // The hub ended, and its JVM's shutdown closed its communicators in order.
                System.out.println(me + ": the hub closed (" + e.getMessage() + "); all checks passed");
                System.exit(0);
            }
            long now = System.nanoTime();
            if (now > nextLook) {
                nextLook = now + 50_000_000L;
                if (exchange.has(me + ".exit")) {
                    System.out.println(me + ": exiting without closing after " + stream.received() + " messages");
                    System.exit(0);
                }
                if (exchange.has("hub.stop")) {
                    System.out.println(me + ": " + stream.received() + " messages received, " + stream.sent()
                            + " sent; all checks passed");
                    System.exit(0);
                }
            }
            checkDeadline(me + "'s stream");
        }
    }
}
