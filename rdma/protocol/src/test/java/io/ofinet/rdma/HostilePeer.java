package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;

/**
 * A victim endpoint that serves an honest peer while a hostile process attacks it:
 * {@code HostilePeer victim|honest|hostile DIR PROVIDER DOMAIN}.
 *
 * <p>The victim and the honest peer stream messages both ways in lock step (8 B, 4 KiB and 64 KiB
 * in turn), each verifying every byte, the victim with canary bytes on both sides of its registered
 * receive buffer. The victim accepts only the honest connection. The hostile process ({@link
 * HostileProcess}), on a bare libfabric endpoint of the same provider, sends to the victim's
 * control rail malformed, truncated, random and (but on shm) oversized handshake messages, a flood
 * of CONNECTs it never uses, and zero-byte messages and announcements with immediate data that
 * name every communicator id the victim may have, of every kind, with impossible fields or without
 * the right token, and data segments for the victim's first communicators, which only their source
 * tells apart; to the victim's data rail eager messages for those communicators, with random
 * headers or well-formed ones without the token, and (but on shm) more messages too large for an
 * eager buffer than the buffers posted there could fail in a row; then it exits with its
 * connections pending. It publishes how many arrivals it sent that the victim must count, and how
 * many of those too large it sent. The victim checks that the honest stream never stalled over 6 s,
 * that its canaries are intact, that every such arrival was dropped and counted — as forged, for no
 * communicator, or malformed — exactly once (of those too large: at most all), and that the flood
 * met {@code maxPendingConnections}. Exit status 0: all held.
 */
public final class HostilePeer {
    static final int MESSAGES_AT_LEAST = 2000;
    /** peerTimeoutMs, the default, scaled as the bound below is: how long a receive waits for data that never comes. */
    private static final long PEER_TIMEOUT_MS = TestTime.ms(30_000);
    /**
     * The longest the honest stream may wait for a message: a receive a forgery was charged to waits
     * until peerTimeoutMs, and a refused post fails after postRetryTimeoutMs (10 s). A fifth of the
     * first, 6 s unscaled, tells such waits from the pauses of a loaded two-core machine beside
     * three JVMs (at most 0.6 s seen, {@link ForgingPeer}).
     */
    static final long STALL_BOUND_NANOS = PEER_TIMEOUT_MS / 5 * 1_000_000L;
    private static final long[] SIZES = {8, 4096, 65536};
    private static final int MAX = 65536;
    private static final int CANARY = 4096;
    private static final int MAX_PENDING = 8;
    private static final long DEADLINE = System.nanoTime() + Duration.ofSeconds(150).toNanos();

    private HostilePeer() {
    }

    public static void main(String[] args) throws Exception {
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        boolean ok = switch (args[0]) {
            case "victim" -> streamer(exchange, args[2], args[3], true);
            case "honest" -> streamer(exchange, args[2], args[3], false);
            default -> {
                try {
                    yield HostileProcess.run(exchange, args[2], args[3]);
                } finally {
                    // So that the others stop streaming, whatever became of this process.
                    exchange.publish("hostile.exited", "1");
                }
            }
        };
        System.out.println(args[0] + (ok ? ": all checks passed" : ": SOME CHECKS FAILED"));
        System.exit(ok ? 0 : 1);
    }

    /** Fails the process's role once its 150 s are over; {@code what} names the step that waited. */
    static void check(String what) {
        if (System.nanoTime() > DEADLINE) {
            throw new IllegalStateException(what + " did not finish in time");
        }
    }

    /** The victim or the honest peer: connected both ways, streaming in lock step. */
    private static boolean streamer(AddressExchange exchange, String provider, String domain, boolean victim)
            throws Exception {
        DeviceSpec spec = Layouts.device(provider, new String[] {domain},
                "\"connectionTimeoutMs\": 5000, \"peerTimeoutMs\": " + PEER_TIMEOUT_MS + ", \"maxPendingConnections\": "
                        + MAX_PENDING);
        String me = victim ? "victim" : "honest";
        String other = victim ? "honest" : "victim";
        boolean ok = true;
        try (Device device = Device.open(new OfiProvider(), spec);
                HostBuffer recvArea = new HostBuffer(MAX + 2L * CANARY).fill((byte) 0x5A);
                HostBuffer sendArea = new HostBuffer(MAX)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            LockStep comms = LockStep.connect(endpoint, exchange, me, other);
            if (victim) {
                // Where the hostile process aims its data-rail messages. A process on this host
                // could find it by trying ports; the test saves it the search.
                exchange.publish("victim.data", HexFormat.of().formatHex(endpoint.railSet.dataEndpoint(0).name()));
                // How its connectors must write, as any peer's CONNECT says (the default configuration's).
                exchange.publish("victim.noticed", Long.toString(endpoint.railSet.writesNoticedAbove()));
            }
            exchange.publish(me + ".ready", "1");
            long recvBuffer = recvArea.address + CANARY;
            MrHandle recvMr = endpoint.registerUserBuffer(recvBuffer, MAX);
            MrHandle sendMr = endpoint.registerUserBuffer(sendArea.address, MAX);
            long[] size = new long[1];
            int stopAt = Integer.MAX_VALUE;
            int i = 0;
            for (; i < stopAt; i++) {
                int length = (int) SIZES[i % SIZES.length];
                fill(sendArea.address, length, i, victim);
                size[0] = MAX;
                comms.message(i, recvBuffer, recvMr, sendArea.address, length, sendMr, size, Long.MAX_VALUE);
                if (size[0] != length || !verify(recvBuffer, length, i, !victim)) {
                    System.out.println("FAILED: message " + i + " of " + size[0] + " bytes did not arrive intact");
                    ok = false;
                    break;
                }
                if (stopAt == Integer.MAX_VALUE) {
                    if (victim && i >= MESSAGES_AT_LEAST && exchange.has("hostile.exited")) {
                        stopAt = i + 50;
                        exchange.publish("stop", Integer.toString(stopAt));
                    } else if (!victim && exchange.has("stop")) {
                        stopAt = Integer.parseInt(exchange.awaitString("stop", Duration.ofSeconds(1)));
                    }
                }
            }
            System.out.println(me + ": " + i + " messages verified each way; longest wait "
                    + comms.longestGap() / 1_000_000 + " ms");
            if (comms.longestGap() > STALL_BOUND_NANOS) {
                System.out.println("FAILED: the stream stalled for " + comms.longestGap() / 1_000_000 + " ms");
                ok = false;
            }
            if (victim) {
                ok &= victimChecks(endpoint, exchange, recvArea);
            }
            comms.finish(exchange, recvMr, sendMr);
        }
        return ok;
    }

    private static boolean victimChecks(RdmaEndpoint endpoint, AddressExchange exchange, HostBuffer recvArea)
            throws Exception {
        boolean ok = true;
        for (long k = 0; k < CANARY; k++) {
            if (NativeMemory.getByte(recvArea.address + k) != 0x5A
                    || NativeMemory.getByte(recvArea.address + CANARY + MAX + k) != 0x5A) {
                System.out.println("FAILED: a canary byte outside the registered buffer changed");
                ok = false;
                break;
            }
        }
        if (!exchange.has("hostile.done")) {
            System.out.println("FAILED: the hostile peer did not get through its attacks");
            return false;
        }
        long sent = Long.parseLong(exchange.awaitString("hostile.done", Duration.ofSeconds(1)));
        long flood = Long.parseLong(exchange.awaitString("hostile.flood", Duration.ofSeconds(1)));
        long oversized = Long.parseLong(exchange.awaitString("hostile.oversized", Duration.ofSeconds(1)));
        // Arrivals may still be on their way: wait until all are counted, for at most 15 s (a victim
        // sharing two loaded cores with the hostile process has counted forgeries 8 s late: SegmentForger).
        EndpointStatistics stats = endpoint.statistics();
        long end = System.nanoTime() + TestTime.nanos(15_000);
        while (dropped(stats) < sent && System.nanoTime() < end) {
            endpoint.progress();
            stats = endpoint.statistics();
        }
        System.out.println("victim: hostile sent " + sent + " arrivals to be counted, " + oversized
                + " too large for their receive, and " + flood + " CONNECTs; " + stats.asMap());
        if (dropped(stats) < sent || dropped(stats) > sent + oversized) {
            System.out.println("FAILED: " + dropped(stats) + " arrivals counted as forged, for no communicator or"
                    + " malformed; the hostile peer sent " + sent + " and " + oversized + " too large");
            ok = false;
        }
        if (stats.droppedForged() == 0 || stats.droppedMalformed() == 0 || stats.droppedUnknownComm() == 0) {
            System.out.println("FAILED: every kind of drop should have been seen");
            ok = false;
        }
        if (stats.refusedConnections() < flood - MAX_PENDING || stats.droppedHandshakes() == 0) {
            System.out.println("FAILED: the CONNECT flood was not bounded, or no malformed handshake was counted");
            ok = false;
        }
        return ok;
    }

    private static long dropped(EndpointStatistics s) {
        return s.droppedForged() + s.droppedUnknownComm() + s.droppedMalformed();
    }

    /** Message {@code i}'s bytes: which side sent it is part of the pattern. */
    static void fill(long address, int length, int i, boolean fromVictim) {
        for (int k = 0; k < length; k++) {
            NativeMemory.putByte(address + k, (byte) (k * 31 + i * 7 + (fromVictim ? 1 : 2)));
        }
    }

    static boolean verify(long address, int length, int i, boolean fromVictim) {
        for (int k = 0; k < length; k++) {
            if (NativeMemory.getByte(address + k) != (byte) (k * 31 + i * 7 + (fromVictim ? 1 : 2))) {
                return false;
            }
        }
        return true;
    }
}
