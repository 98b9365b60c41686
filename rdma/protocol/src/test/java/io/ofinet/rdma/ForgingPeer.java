package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.comm.CommStatistics;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A victim endpoint that streams with an honest peer while a third process, connected to it like
 * any peer, forges data segments for the honest peer's receives: {@code ForgingPeer
 * victim|honest|attacker DIR PROVIDER DOMAIN}.
 *
 * <p>The victim and the honest peer stream messages both ways in lock step (8 B, 4 KiB, 64 KiB and
 * 1 MiB in turn, across the eager boundary), each verifying every byte. The victim accepts the
 * attacker too and keeps {@value #ATTACKER_RECEIVES} receives posted for it, each announced to it
 * with the buffer's address and key ({@link #attackerBuffer}); the attacker ({@link SegmentForger}) forges segments for
 * {@link SegmentForger#ATTACK_SECONDS} s from what an announcement told it. The victim checks that
 * every message arrived whole and intact, that the stream never failed nor paused longer than
 * {@link #STALL_BOUND_NANOS}, and that every forged segment naming the honest receive communicator
 * that the attacker got out was dropped and counted there as forged, none as malformed: none was
 * charged to its receives. Exit status 0: all held.
 */
public final class ForgingPeer {
    private static final long[] SIZES = {8, 4096, 65536, 1 << 20};
    private static final int MAX = 1 << 20;
    /** Larger than eagerMaxSize (8 KiB): the attacker's receives are announced to it. */
    private static final int ATTACKER_BUFFER = 65536;
    static final int ATTACKER_RECEIVES = 4;
    /** peerTimeoutMs, the default, scaled: how long a receive waits for data that never comes before it fails. */
    private static final long PEER_TIMEOUT_MS = TestTime.ms(30_000);
    /**
     * The longest the stream may wait for a message. A 1 MiB message takes milliseconds over
     * loopback; a receive a forged segment was charged to fails, completes early with the wrong
     * bytes, or waits for data that never comes until {@code peerTimeoutMs}. A third of it tells
     * that wait apart from the pauses of a loaded two-core machine under the attacker's forgeries
     * (at most 0.6 s seen).
     */
    static final long STALL_BOUND_NANOS = PEER_TIMEOUT_MS / 3 * 1_000_000L;
    static final String LAYOUT = "\"connectionTimeoutMs\": 5000, \"peerTimeoutMs\": " + PEER_TIMEOUT_MS;

    private ForgingPeer() {
    }

    public static void main(String[] args) throws Exception {
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        boolean ok;
        if (args[0].equals("attacker")) {
            try {
                ok = SegmentForger.run(exchange, args[2], args[3]);
            } finally {
                exchange.publish("attacker.exited", "1");
            }
        } else {
            ok = stream(exchange, args[2], args[3], args[0].equals("victim"));
        }
        System.out.println(args[0] + (ok ? ": all checks passed" : ": SOME CHECKS FAILED"));
        System.exit(ok ? 0 : 1);
    }

    /** The victim or the honest peer: connected both ways, streaming in lock step. */
    private static boolean stream(AddressExchange exchange, String provider, String domain, boolean victim)
            throws Exception {
        DeviceSpec spec = Layouts.device(provider, new String[] {domain}, LAYOUT);
        String me = victim ? "victim" : "honest";
        String other = victim ? "honest" : "victim";
        boolean ok = true;
        try (Device device = Device.open(new OfiProvider(), spec);
                HostBuffer recvArea = new HostBuffer(MAX);
                HostBuffer sendArea = new HostBuffer(MAX)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            LockStep comms = LockStep.connect(endpoint, exchange, me, other);
            Attacked attacked = null;
            if (victim) {
                exchange.publish("victim.ready", "1");
                RecvComm fromAttacker = null;
                while (fromAttacker == null) {
                    HostilePeer.check("victim accepting the attacker");
                    fromAttacker = endpoint.accept(comms.listen);
                }
                long bytes = attackerBuffer(endpoint);
                HostBuffer area = new HostBuffer(bytes);
                attacked = new Attacked(fromAttacker, area, endpoint.registerUserBuffer(area.address, bytes), bytes);
                System.out.println("victim: the honest peer's receive communicator is " + comms.recv.id()
                        + ", the attacker's " + fromAttacker.id());
            }
            MrHandle recvMr = endpoint.registerUserBuffer(recvArea.address, MAX);
            MrHandle sendMr = endpoint.registerUserBuffer(sendArea.address, MAX);
            long[] size = new long[1];
            long bytes = 0;
            int stopAt = Integer.MAX_VALUE;
            int i = 0;
            try {
                for (; i < stopAt; i++) {
                    if (attacked != null) {
                        attacked.step();
                    }
                    int length = (int) SIZES[i % SIZES.length];
                    HostilePeer.fill(sendArea.address, length, i, victim);
                    size[0] = MAX;
                    if (!comms.message(i, recvArea.address, recvMr, sendArea.address, length, sendMr, size,
                            STALL_BOUND_NANOS)) {
                        ok = false;
                        break;
                    }
                    if (size[0] != length || !HostilePeer.verify(recvArea.address, length, i, !victim)) {
                        System.out.println("FAILED: message " + i + " of " + size[0] + " bytes did not arrive intact");
                        ok = false;
                        break;
                    }
                    bytes += length;
                    if (stopAt == Integer.MAX_VALUE) {
                        if (victim && (exchange.has("attacker.done") || exchange.has("attacker.exited"))) {
                            stopAt = i + 20;
                            exchange.publish("stop", Integer.toString(stopAt));
                        } else if (!victim && exchange.has("stop")) {
                            stopAt = Integer.parseInt(exchange.awaitString("stop", Duration.ofSeconds(1)));
                        }
                    }
                }
            } catch (RdmaException e) {
                System.out.println("FAILED: message " + i + ": " + e);
                ok = false;
            }
            System.out.println(me + ": " + i + " messages verified each way; longest wait "
                    + comms.longestGap() / 1_000_000 + " ms");
            if (victim) {
                ok &= victimChecks(endpoint, exchange, comms.recv, i, bytes, attacked);
            }
            if (attacked != null) {
                comms.finish(exchange, attacked.comm, attacked.mr, attacked.area, recvMr, sendMr);
            } else {
                comms.finish(exchange, recvMr, sendMr);
            }
        }
        return ok;
    }

    /**
     * The size of the victim's receive buffers for the attacker: announced, and with the address
     * and key of the buffer. A buffer that takes one tagged message (on tcp with writeNotice tagged,
     * up to rxm's eager limit, 64 MiB) is announced without them, so there it is one byte larger.
     */
    private static long attackerBuffer(RdmaEndpoint endpoint) {
        long tagged = endpoint.railSet.taggedUpTo();
        return Math.max(ATTACKER_BUFFER, tagged > 0 ? tagged + 1 : 0);
    }

    /**
     * The honest receive communicator reported {@code messages} of {@code bytes}, no more; every
     * forged segment the attacker got through naming it was dropped and counted as forged.
     */
    private static boolean victimChecks(RdmaEndpoint endpoint, AddressExchange exchange, RecvComm honest,
            int messages, long bytes, Attacked attacked) throws Exception {
        if (!exchange.has("attacker.done")) {
            System.out.println("FAILED: the attacker did not get through its forgeries; the honest communicator's"
                    + " statistics " + honest.statistics().asMap() + ", the endpoint's "
                    + endpoint.statistics().asMap());
            return false;
        }
        long forged = Long.parseLong(exchange.awaitString("attacker.forged." + honest.id(), Duration.ofSeconds(1)));
        // Forgeries may still be on their way: wait until all are counted, for at most 5 s.
        long end = System.nanoTime() + TestTime.nanos(5000);
        while (honest.statistics().droppedForged() < forged && System.nanoTime() < end) {
            endpoint.progress();
        }
        CommStatistics mine = honest.statistics();
        EndpointStatistics all = endpoint.statistics();
        System.out.println("victim: the attacker got " + forged + " forged segments naming the honest receive"
                + " communicator through; its statistics " + mine.asMap() + "; the endpoint's " + all.asMap()
                + "; the attacker's receives: " + attacked.completed + " completed, " + attacked.failed + " failed"
                + (attacked.gone != null ? ", no more posted: " + attacked.gone : ""));
        boolean ok = true;
        if (mine.droppedForged() != forged || mine.droppedMalformed() != 0 || forged == 0) {
            System.out.println("FAILED: of " + forged + " forged segments naming the honest communicator "
                    + mine.droppedForged() + " were counted as forged and " + mine.droppedMalformed()
                    + " as malformed");
            ok = false;
        }
        if (mine.messages() != messages || mine.bytes() != bytes) {
            // A request to send that came after the tagged message filling its buffer once counted
            // the receive twice.
            System.out.println("FAILED: the honest communicator reported " + mine.messages() + " receives done, of "
                    + mine.bytes() + " bytes; the test saw " + messages + " of " + bytes);
            ok = false;
        }
        if (all.droppedForged() < forged) {
            System.out.println("FAILED: the endpoint counted fewer forged arrivals than the honest communicator");
            ok = false;
        }
        return ok;
    }

    /** The victim's receives for the attacker, posted again as they end, so that it gets announcements. */
    private static final class Attacked {
        final RecvComm comm;
        final HostBuffer area;
        final MrHandle mr;
        private final long bytes;
        private final RecvRequest[] posted = new RecvRequest[ATTACKER_RECEIVES];
        long completed;
        long failed;
        String gone;

        Attacked(RecvComm comm, HostBuffer area, MrHandle mr, long bytes) throws RdmaException {
            this.comm = comm;
            this.area = area;
            this.mr = mr;
            this.bytes = bytes;
            step();
        }

        /**
         * Tests each receive and posts again those that ended. The attacker may complete or break
         * its own receives (its forgeries name its own communicator too): that is its connection's
         * business, as long as the honest one goes on.
         */
        void step() {
            for (int k = 0; k < posted.length && gone == null; k++) {
                try {
                    if (posted[k] != null && posted[k].test(null)) {
                        completed++;
                        posted[k] = null;
                    }
                } catch (RdmaException e) {
                    failed++;
                    posted[k] = null;
                }
                try {
                    if (posted[k] == null) {
                        posted[k] = comm.irecv(1, new long[] {area.address}, new long[] {bytes}, new int[] {0},
                                new MrHandle[] {mr});
                    }
                } catch (RdmaException e) {
                    gone = e.getMessage();
                }
            }
        }
    }
}
