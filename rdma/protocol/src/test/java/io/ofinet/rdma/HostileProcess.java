package io.ofinet.rdma;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.EagerMessageHeader;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The hostile role of {@link HostilePeer}: a bare libfabric endpoint of the victim's provider that
 * sends the victim everything a peer should not, publishes how many of its arrivals the victim must
 * count, and exits with its connections pending.
 */
final class HostileProcess {
    private static final int FLOOD = 40;
    /** The largest eager message on tcp (tcp's default eagerMaxSize and its header); on shm 4096 bytes. */
    private static final int EAGER_BYTES = (int) ProviderPolicy.TCP_EAGER_MAX_SIZE + EagerMessageHeader.BYTES;
    /** The largest eager message on shm, its inject size (docs/FABRIC.md). */
    private static final int SHM_EAGER_BYTES = (int) ProviderPolicy.SHM_INJECT_BYTES;
    /** A message larger than an eager buffer but within rxm's own eager size. */
    private static final int OVERSIZED = EAGER_BYTES + 1000;
    private static final int OVERSIZED_MESSAGES = (KeptReceive.MAX_FAILURES_IN_A_ROW + 1) * 128 + 1;
    private static final long ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;

    private HostileProcess() {
    }

    /** Runs the attack; true once everything was sent (the victim judges what it did). */
    static boolean run(AddressExchange exchange, String provider, String domainName) throws Exception {
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
            long noticed = Long.parseLong(exchange.awaitString("victim.noticed", Duration.ofSeconds(1)));
            System.out.println("hostile: flooding with CONNECTs");
            // A flood of CONNECTs, never used; the victim accepts none of them.
            for (int n = 0; n < FLOOD; n++) {
                byte[] m = connect(victim, peer, n, noticed, eagerMaxSize(provider)).encode();
                out.send(m, m.length, -1);
            }
            System.out.println("hostile: sending arrivals with immediate data");
            // Arrivals with immediate data, every one to be dropped and counted by the victim.
            long immediates = 0;
            for (int comm = 0; comm < 64; comm++) {
                for (int side = 0; side < 4; side++) {
                    out.zeroByte(Immediate.encode(Immediate.TYPE_SIGNAL, 1, side, comm, 0), random.nextInt());
                    immediates++;
                }
                for (int reason = 1; reason <= 3; reason++) {
                    out.zeroByte(Immediate.encode(Immediate.TYPE_ERROR, reason, 0, comm, random.nextInt(1024)),
                            random.nextInt());
                    immediates++;
                }
                out.zeroByte(Immediate.encode(Immediate.TYPE_ANNOUNCEMENT, 1, 0, comm, random.nextInt(1024)), random.nextInt());
                // An announcement sent with bytes (as under write notices), without the token.
                byte[] announcement = new byte[Announcement.maxBytes(1)];
                random.nextBytes(announcement);
                out.send(announcement, announcement.length, Immediate.encode(Immediate.TYPE_ANNOUNCEMENT, 1, 0, comm, 0)
                        | (long) random.nextInt() << 32);
                immediates += 2;
                // Data segments for communicators that cannot exist, and impossible segment counts.
                out.zeroByte(Immediate.encode(Immediate.TYPE_DATA, 1, 0, Limits.MAX_COMMS - 1 - comm, 0), 64);
                out.zeroByte(Immediate.encode(Immediate.TYPE_DATA, 16, 0, comm, 0), 64);
                out.zeroByte(Immediate.encode(Immediate.TYPE_ERROR, 1, 0, comm, 0) & ~(0xf << 26) | 7 << 26, 0);
                immediates += 3;
            }
            // Zero-byte data segments for the first communicators and sequence numbers, as a zero-byte
            // send's notice: they would complete the honest peer's receives early, were they not told
            // apart by their source (received messages name theirs on tcp;ofi_rxm and on shm).
            for (int comm = 0; comm < 4; comm++) {
                for (int seq = 0; seq < 16; seq++) {
                    out.zeroByte(Immediate.encode(Immediate.TYPE_DATA, 1, 0, comm, seq), 0);
                    immediates++;
                }
            }
            // Eager messages to the victim's data rail for its first communicators and sequence
            // numbers, headers random or well formed with a wrong token, of every size up to the
            // largest eager message: dropped by their source or their token, never matched.
            // shm's largest (its inject size): a larger message than the receive hangs shm (below).
            int eagerBytes = eagerBytes(provider);
            byte[] eager = new byte[OVERSIZED];
            for (int comm = 0; comm < 4; comm++) {
                for (int seq = 0; seq < 16; seq++) {
                    random.nextBytes(eager);
                    if (seq % 2 == 0) {
                        int size = random.nextInt(eagerBytes - EagerMessageHeader.BYTES + 1);
                        try (HostBuffer header = new HostBuffer(EagerMessageHeader.BYTES)) {
                            EagerMessageHeader.encode(NativeMemory.host(), header.address, EagerMessageHeader.KIND_EAGER,
                                    seq, 0, size, random.nextInt());
                            System.arraycopy(header.bytes(0, EagerMessageHeader.BYTES), 0, eager, 0, EagerMessageHeader.BYTES);
                        }
                    }
                    int length = EagerMessageHeader.BYTES + random.nextInt(eagerBytes - EagerMessageHeader.BYTES + 1);
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
            out.send(stray, stray.length, Immediate.encode(Immediate.TYPE_SIGNAL, 1, 0, 0, 0));
            immediates++;
            System.out.println("hostile: sending broken handshake messages");
            // Handshake messages: random bytes, CONNECTs cut short, and messages larger than any receive;
            // last, so that the exact count above does not depend on how a provider goes on after a
            // receive it had to truncate.
            byte[] connect = connect(victim, peer, random.nextInt(Limits.MAX_COMMS), noticed, eagerMaxSize(provider))
                    .encode();
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

    /** The victim's largest eager message, header included. */
    private static int eagerBytes(String provider) {
        return provider.equals("shm") ? SHM_EAGER_BYTES : EAGER_BYTES;
    }

    /** The victim's eager payload, which a CONNECT must name for the victim to consider it. */
    private static int eagerMaxSize(String provider) {
        return eagerBytes(provider) - EagerMessageHeader.BYTES;
    }

    /** A CONNECT of this bare endpoint's, with a random mailbox it does not have. */
    private static HandshakeMessage connect(ListenHandle victim, Peer peer, int commId, long noticed, int eagerMaxSize)
            throws Exception {
        byte[] name = peer.endpoint.name();
        return HandshakeMessage.connect(1, 1, victim.listenId(), commId, 0x1000, Limits.WINDOW,
                Announcement.maxBytes(1), new long[] {commId}, List.of(name), List.of(name), ProcessIdentity.NONE,
                commId + 1, eagerMaxSize, noticed);
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
        void zeroByte(int word, long upper) throws Exception {
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
                HostilePeer.check("the hostile peer's send");
                int rc = immediate ? peer.endpoint.senddata(buf, length, desc, data, dest, ctx)
                        : peer.endpoint.send(buf, length, desc, dest, ctx);
                if (rc == Endpoint.POSTED) {
                    break;
                }
                peer.progress();
            }
            while (peer.take(ctx) == null) {
                HostilePeer.check("the hostile peer's send completion of message " + ctx + " (" + length + " bytes)");
                peer.progress();
            }
        }
    }
}
