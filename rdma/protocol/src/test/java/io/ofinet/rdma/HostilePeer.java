package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.wire.ControlMessage;
import io.ofinet.rdma.wire.EagerHeader;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A victim endpoint that serves an honest peer while a hostile process attacks it:
 * {@code HostilePeer victim|honest|hostile DIR PROVIDER DOMAIN}.
 *
 * <p>The victim and the honest peer stream messages both ways in lock step (8 B, 4 KiB and 64 KiB
 * in turn), each verifying every byte, the victim with canary bytes on both sides of its
 * registered receive buffer. The victim accepts only the honest connection. The hostile process,
 * on a bare libfabric endpoint of the same provider, sends to the victim's control rail malformed,
 * truncated, random and (but on shm) oversized handshake messages, a flood of CONNECTs it never
 * uses, and zero-byte messages and control messages with immediate data that name every
 * communicator id the victim may have, of every kind, with impossible fields or without the right
 * token, and data segments for the victim's first communicators, which only their source tells
 * apart; to the victim's data rail eager messages for those communicators, with random headers or
 * well-formed ones without the token, and (but on shm) more messages too large for an eager buffer
 * than the buffers posted there could fail in a row; then it exits with its connections pending.
 * It publishes how many arrivals it sent that the victim must count, and how many of those too
 * large it sent. The victim checks that the honest stream never stalled over 3 s, that its
 * canaries are intact, that every such arrival was dropped and counted — as forged, for no
 * communicator, or malformed — exactly once (of those too large: at most all), and that the flood
 * met {@code maxPendingConnections}. Exit status 0: all held.
 */
public final class HostilePeer {
    static final int MESSAGES_AT_LEAST = 2000;
    static final long STALL_BOUND_NANOS = 3_000_000_000L;
    private static final long[] SIZES = {8, 4096, 65536};
    private static final int MAX = 65536;
    private static final int CANARY = 4096;
    private static final int MAX_PENDING = 8;
    private static final int FLOOD = 40;
    /** The largest eager message on tcp (the default eagerMaxSize and its header); on shm 4096 bytes. */
    private static final int EAGER_BYTES = 8192 + EagerHeader.BYTES;
    /** A message larger than an eager buffer but within rxm's own eager size. */
    private static final int OVERSIZED = EAGER_BYTES + 1000;
    private static final int OVERSIZED_MESSAGES = (KeptReceive.MAX_FAILURES_IN_A_ROW + 1) * 128 + 1;
    private static final long ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;
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
                    yield hostile(exchange, args[2], args[3]);
                } finally {
                    // So that the others stop streaming, whatever became of this process.
                    exchange.publish("hostile.exited", "1");
                }
            }
        };
        System.out.println(args[0] + (ok ? ": all checks passed" : ": SOME CHECKS FAILED"));
        System.exit(ok ? 0 : 1);
    }

    private static void check(String what) {
        if (System.nanoTime() > DEADLINE) {
            throw new IllegalStateException(what + " did not finish in time");
        }
    }

    /** The victim or the honest peer: connected both ways, streaming in lock step. */
    private static boolean streamer(AddressExchange exchange, String provider, String domain, boolean victim)
            throws Exception {
        DeviceSpec spec = Layouts.device(provider, new String[] {domain},
                "\"connectionTimeoutMs\": 5000, \"maxPendingConnections\": " + MAX_PENDING);
        String me = victim ? "victim" : "honest";
        String other = victim ? "honest" : "victim";
        boolean ok = true;
        try (Device device = Device.open(new OfiProvider(), spec);
                HostBuffer recvArea = new HostBuffer(MAX + 2L * CANARY).fill((byte) 0x5A);
                HostBuffer sendArea = new HostBuffer(MAX)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            ListenComm listen = endpoint.listen();
            exchange.publish(me, HexFormat.of().formatHex(listen.handle()));
            byte[] handle = HexFormat.of().parseHex(exchange.awaitString(other, Duration.ofSeconds(60)));
            SendComm send = null;
            RecvComm recv = null;
            while (send == null || recv == null) {
                check(me + " connecting");
                send = send != null ? send : endpoint.connect(handle);
                recv = recv != null ? recv : endpoint.accept(listen);
            }
            if (victim) {
                // Where the hostile process aims its data-rail messages. A process on this host
                // could find it by trying ports; the test saves it the search.
                exchange.publish("victim.data", HexFormat.of().formatHex(endpoint.railSet.dataEndpoint(0).name()));
            }
            exchange.publish(me + ".ready", "1");
            long recvBuffer = recvArea.address + CANARY;
            MrHandle recvMr = endpoint.registerUserBuffer(recvBuffer, MAX);
            MrHandle sendMr = endpoint.registerUserBuffer(sendArea.address, MAX);
            long[] size = new long[1];
            long longestGap = 0;
            long last = System.nanoTime();
            int stopAt = Integer.MAX_VALUE;
            int i = 0;
            for (; i < stopAt; i++) {
                int length = (int) SIZES[i % SIZES.length];
                fill(sendArea.address, length, i, victim);
                RecvRequest r = null;
                SendRequest s = null;
                while (r == null) {
                    check(me + " posting receive " + i);
                    r = recv.irecv(1, new long[] {recvBuffer}, new long[] {MAX}, new int[] {0}, new MrHandle[] {recvMr});
                }
                while (s == null) {
                    check(me + " posting send " + i);
                    s = send.isend(sendArea.address, length, 0, sendMr);
                }
                boolean got = false;
                boolean sent = false;
                while (!got || !sent) {
                    check(me + " message " + i);
                    got = got || r.test(size);
                    sent = sent || s.test(null);
                    long now = System.nanoTime();
                    if (got || sent) {
                        longestGap = Math.max(longestGap, now - last);
                        last = now;
                    }
                }
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
                    + longestGap / 1_000_000 + " ms");
            if (longestGap > STALL_BOUND_NANOS) {
                System.out.println("FAILED: the stream stalled for " + longestGap / 1_000_000 + " ms");
                ok = false;
            }
            if (victim) {
                ok &= victimChecks(endpoint, exchange, recvArea);
            }
            exchange.publish(me + ".done", "1");
            long end = System.nanoTime() + 10_000_000_000L;
            while (!exchange.has(other + ".done") && System.nanoTime() < end) {
                endpoint.progress();
            }
            recvMr.close();
            sendMr.close();
            send.close();
            recv.close();
            listen.close();
            endpoint.close();
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
        // Arrivals may still be on their way: wait until all are counted, for at most 5 s.
        EndpointStatistics stats = endpoint.statistics();
        long end = System.nanoTime() + 5_000_000_000L;
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
    private static void fill(long address, int length, int i, boolean fromVictim) {
        for (int k = 0; k < length; k++) {
            NativeMemory.putByte(address + k, (byte) (k * 31 + i * 7 + (fromVictim ? 1 : 2)));
        }
    }

    private static boolean verify(long address, int length, int i, boolean fromVictim) {
        for (int k = 0; k < length; k++) {
            if (NativeMemory.getByte(address + k) != (byte) (k * 31 + i * 7 + (fromVictim ? 1 : 2))) {
                return false;
            }
        }
        return true;
    }

    /** The hostile process: a bare endpoint of the same provider. */
    private static boolean hostile(AddressExchange exchange, String provider, String domainName) throws Exception {
        OfiProvider ofi = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = ofi.getinfo(InfoHints.protocol().withProvider(provider).withDomain(domainName))) {
            fabric = ofi.openFabric(offers.infos().get(0));
        }
        ListenHandle victim = ListenHandle.decode(HexFormat.of().parseHex(exchange.awaitString("victim",
                Duration.ofSeconds(60))));
        exchange.awaitString("victim.ready", Duration.ofSeconds(60));
        SplittableRandom random = new SplittableRandom(7);
        try (Fabric f = fabric; Domain domain = f.openDomain(); Peer peer = new Peer(domain);
                HostBuffer buf = new HostBuffer(OVERSIZED)) {
            MemoryRegion mr = domain.register(buf.address, buf.size, ACCESS, 77, Fi.HMEM_SYSTEM);
            Sender out = new Sender(peer, peer.av.insert(victim.address()), buf.address, mr.descriptor());
            Sender data = new Sender(peer, peer.av.insert(HexFormat.of().parseHex(exchange.awaitString("victim.data",
                    Duration.ofSeconds(1)))), buf.address, mr.descriptor());
            System.out.println("hostile: flooding with CONNECTs");
            // A flood of CONNECTs, never used; the victim accepts none of them.
            for (int n = 0; n < FLOOD; n++) {
                byte[] m = connect(victim, peer, n).encode();
                out.send(m, m.length, -1);
            }
            System.out.println("hostile: sending arrivals with immediate data");
            // Arrivals with immediate data, every one to be dropped and counted by the victim.
            long immediates = 0;
            for (int comm = 0; comm < 64; comm++) {
                for (int side = 0; side < 4; side++) {
                    out.notice(Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, side, comm, 0), random.nextInt());
                    immediates++;
                }
                for (int reason = 1; reason <= 3; reason++) {
                    out.notice(Immediate.encode(Immediate.TYPE_ERROR, reason, 0, comm, random.nextInt(1024)),
                            random.nextInt());
                    immediates++;
                }
                out.notice(Immediate.encode(Immediate.TYPE_CONTROL, 1, 0, comm, random.nextInt(1024)), random.nextInt());
                // A control message sent with bytes (as under write notices), without the token.
                byte[] control = new byte[ControlMessage.maxBytes(1)];
                random.nextBytes(control);
                out.send(control, control.length, Immediate.encode(Immediate.TYPE_CONTROL, 1, 0, comm, 0)
                        | (long) random.nextInt() << 32);
                immediates += 2;
                // Data segments for communicators that cannot exist, and impossible segment counts.
                out.notice(Immediate.encode(Immediate.TYPE_DATA, 1, 0, Limits.MAX_COMMS - 1 - comm, 0), 64);
                out.notice(Immediate.encode(Immediate.TYPE_DATA, 16, 0, comm, 0), 64);
                out.notice(Immediate.encode(Immediate.TYPE_ERROR, 1, 0, comm, 0) & ~(0xf << 26) | 7 << 26, 0);
                immediates += 3;
            }
            // Zero-byte data segments for the first communicators and sequence numbers, as a zero-byte
            // send's notice: they would complete the honest peer's receives early, were they not told
            // apart by their source (received messages name theirs on tcp;ofi_rxm and on shm).
            for (int comm = 0; comm < 4; comm++) {
                for (int seq = 0; seq < 16; seq++) {
                    out.notice(Immediate.encode(Immediate.TYPE_DATA, 1, 0, comm, seq), 0);
                    immediates++;
                }
            }
            // Eager messages to the victim's data rail for its first communicators and sequence
            // numbers, headers random or well formed with a wrong token, of every size up to the
            // largest eager message: dropped by their source or their token, never matched.
            // shm's largest (its inject size): a larger message than the receive hangs shm (below).
            int eagerBytes = provider.equals("shm") ? 4096 : EAGER_BYTES;
            byte[] eager = new byte[OVERSIZED];
            for (int comm = 0; comm < 4; comm++) {
                for (int seq = 0; seq < 16; seq++) {
                    random.nextBytes(eager);
                    if (seq % 2 == 0) {
                        int size = random.nextInt(eagerBytes - EagerHeader.BYTES + 1);
                        try (HostBuffer header = new HostBuffer(EagerHeader.BYTES)) {
                            EagerHeader.encode(NativeMemory.host(), header.address, EagerHeader.KIND_EAGER,
                                    EagerHeader.BY_TAG, seq, 0, size, random.nextInt());
                            System.arraycopy(header.bytes(0, EagerHeader.BYTES), 0, eager, 0, EagerHeader.BYTES);
                        }
                    }
                    int length = EagerHeader.BYTES + random.nextInt(eagerBytes - EagerHeader.BYTES + 1);
                    data.send(eager, length, Immediate.encode(Immediate.TYPE_DATA, 1, 0, comm, seq)
                            | (long) random.nextInt() << 32);
                    immediates++;
                }
            }
            int oversized = 0;
            if (!provider.equals("shm")) {
                // Messages larger than an eager buffer, more than the failures a posted receive may
                // have in a row times the buffers posted: each that arrives is dropped and counted, and
                // the buffer it met is posted again. tcp's connection breaks at such a message (its
                // stream cannot skip the rest), so most fail at this end: how many arrive is not
                // known here. (Not on shm, which loops forever on a message larger than the receive.)
                for (; oversized < OVERSIZED_MESSAGES; oversized++) {
                    data.send(eager, OVERSIZED, Immediate.encode(Immediate.TYPE_DATA, 1, 0, oversized % 4,
                            oversized % 16));
                }
            }
            // A message with payload and an immediate type that never carries one.
            byte[] stray = new byte[100];
            out.send(stray, stray.length, Immediate.encode(Immediate.TYPE_KEEPALIVE, 1, 0, 0, 0));
            immediates++;
            System.out.println("hostile: sending broken handshake messages");
            // Handshake messages: random bytes, CONNECTs cut short, and messages larger than any receive;
            // last, so that the exact count above does not depend on how a provider goes on after a
            // receive it had to truncate.
            byte[] connect = connect(victim, peer, random.nextInt(Limits.MAX_COMMS)).encode();
            int broken = 0;
            for (int n = 0; n < 20; n++) {
                broken += 2;
                byte[] junk = new byte[1 + random.nextInt(3000)];
                random.nextBytes(junk);
                out.send(junk, junk.length, -1);
                out.send(connect, 1 + random.nextInt(connect.length - 1), -1);
                if (!provider.equals("shm")) {
                    // Not on shm: libfabric 1.17's shm copies a message larger than its inline size
                    // with process_vm_readv until the sender's size is reached (smr_cma_loop), which
                    // never ends when the posted receive is smaller: the receiver hangs in progress.
                    // A process on the same host can do worse anyway (docs/PROTOCOL.md).
                    out.send(new byte[0], 2 * ControlRailBuffer.BYTES, -1);
                    broken++;
                    oversized++; // counted with the malformed if it arrives; tcp's connection breaks at it
                }
            }
            mr.close();
            exchange.publish("hostile.flood", Integer.toString(FLOOD));
            exchange.publish("hostile.oversized", Integer.toString(oversized));
            exchange.publish("hostile.done", Long.toString(immediates));
            System.out.println("hostile: sent " + immediates + " arrivals to be counted, " + oversized
                    + " messages too large for their receive, " + FLOOD
                    + " CONNECTs and " + broken + " broken handshake messages; exiting with its connections pending");
        }
        return true;
    }

    /** A CONNECT of this bare endpoint's, with a random mailbox it does not have. */
    private static HandshakeMessage connect(ListenHandle victim, Peer peer, int commId) throws Exception {
        byte[] name = peer.endpoint.name();
        return HandshakeMessage.connect(1, 1, victim.listenId(), commId, 0x1000, Limits.WINDOW,
                ControlMessage.maxBytes(1), new long[] {commId}, List.of(name), List.of(name), ProcessIdentity.NONE,
                commId + 1, 8192);
    }

    /** Posts sends from the bare endpoint, one at a time, to completion or error. */
    private static final class Sender {
        private final Peer peer;
        private final long dest;
        private final long buf;
        private final long desc;
        private long context = 1;

        Sender(Peer peer, long dest, long buf, long desc) {
            this.peer = peer;
            this.dest = dest;
            this.buf = buf;
            this.desc = desc;
        }

        /** A zero-byte message with immediate data {@code word} and {@code upper} above it. */
        void notice(int word, long upper) throws Exception {
            post(0, (upper & 0xffffffffL) << 32 | (word & 0xffffffffL), true);
        }

        /** {@code bytes[0, length)} (zeros past the array), with immediate data unless {@code data} is -1. */
        void send(byte[] bytes, int length, long data) throws Exception {
            NativeMemory.fill(buf, length, (byte) 0);
            for (int k = 0; k < Math.min(length, bytes.length); k++) {
                NativeMemory.putByte(buf + k, bytes[k]);
            }
            post(length, data, data != -1);
        }

        private void post(long length, long data, boolean immediate) throws Exception {
            long ctx = context++;
            while (true) {
                check("the hostile peer's send");
                int rc = immediate ? peer.endpoint.senddata(buf, length, desc, data, dest, ctx)
                        : peer.endpoint.send(buf, length, desc, dest, ctx);
                if (rc == Endpoint.POSTED) {
                    break;
                }
                peer.progress();
            }
            while (peer.take(ctx) == null) {
                check("the hostile peer's send completion of message " + ctx + " (" + length + " bytes)");
                peer.progress();
            }
        }
    }
}
