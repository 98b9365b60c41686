package io.ofinet.rdma;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.RailKind;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.Operation;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Announcement;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The attacker of {@link ForgingPeer}: an ofinet endpoint connected to the victim like any peer,
 * which learns from the announcement of a receive the victim posted for it where it may write, and
 * then, for {@value #ATTACK_SECONDS} s, forges data segments for the victim's receive communicators
 * 0 to {@value #COMMS} - 1 (the honest peer's among them) and every sequence number, with a
 * plausible segment length in the upper half of the CQ data, by every way its raw endpoints allow:
 * a write with immediate data into its own announced buffer on the data rail, the same on the
 * control rail (its domain is the data rail's, so the key holds there), and a zero-byte message
 * with that immediate data on the data rail (a forged write notice). Then it publishes, per
 * communicator id, how many of its forgeries completed at this end, and exits once the victim is
 * done.
 */
final class SegmentForger {
    static final int ATTACK_SECONDS = 10;
    private static final int COMMS = 8;
    private static final long[] CLAIMED = {8, 4096, 65536, 1 << 20};
    private static final int WRITE_BYTES = 64;
    /**
     * Forgeries per second, all ways together: what a victim on a loaded two-core machine handles
     * beside its honest stream. At full speed (25,000 to 37,000 a second here) the victim on tcp was
     * still counting forgeries 8 s after the last was posted, and its honest stream waited up to
     * 7.6 s for a message (once over 10 s): slowed by the flood, never failed nor charged, but a
     * test of how fast a victim drains a flood rather than of what forgeries do.
     */
    private static final int RATE = 12_000;

    private SegmentForger() {
    }

    /** The ways a forgery goes out, each with one counting operation per communicator id. */
    private enum Way {
        WRITE_ON_DATA_RAIL, WRITE_ON_CONTROL_RAIL, NOTICE_ON_DATA_RAIL
    }

    static boolean run(AddressExchange exchange, String provider, String domain) throws Exception {
        exchange.awaitString("victim.ready", Duration.ofSeconds(90));
        byte[] handle = HexFormat.of().parseHex(exchange.awaitString("victim", Duration.ofSeconds(1)));
        try (Device device = Device.open(new OfiProvider(), Layouts.device(provider, new String[] {domain},
                ForgingPeer.LAYOUT)); HostBuffer junk = new HostBuffer(WRITE_BYTES).fill((byte) 0xEE)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            SendComm send = null;
            while (send == null) {
                HostilePeer.check("attacker connecting");
                send = endpoint.connect(handle);
            }
            Announcement announcement = firstAnnouncement(endpoint, send);
            long address = announcement.address(0);
            long key = announcement.key(0, 0);
            System.out.println("attacker: announced " + announcement.length(0) + " bytes at 0x"
                    + Long.toHexString(address) + ", key 0x" + Long.toHexString(key)
                    + (announcement.tagged(0) ? ", for a tagged message" : ""));
            MrHandle mr = endpoint.registerUserBuffer(junk.address, WRITE_BYTES);
            long desc = mr.descriptor(RailKind.DATA, 0);
            Endpoint data = endpoint.railSet.dataEndpoint(0);
            Endpoint control = endpoint.railSet.controlEndpoint(0);
            long dataPeer = send.connection().dataPeer(0);
            long controlPeer = send.connection().controlPeer(0);
            Counted[][] ops = new Counted[Way.values().length][COMMS];
            endpoint.lock();
            try {
                for (Way way : Way.values()) {
                    for (int comm = 0; comm < COMMS; comm++) {
                        ops[way.ordinal()][comm] = new Counted(way + " for communicator " + comm);
                        endpoint.engine.register(ops[way.ordinal()][comm]);
                    }
                }
            } finally {
                endpoint.unlock();
            }
            exchange.publish("attacker.started", "1");
            int sweeps = 0;
            long start = System.nanoTime();
            long end = start + Duration.ofSeconds(ATTACK_SECONDS).toNanos();
            long forgeries = 0;
            while (System.nanoTime() < end) {
                for (int comm = 0; comm < COMMS && System.nanoTime() < end; comm++) {
                    for (int seq = 0; seq < 1 << Limits.SEQ_BITS; seq++) {
                        if (seq % 256 == 0) {
                            pace(endpoint, start + forgeries * 1_000_000_000L / RATE);
                            forgeries += 256 * Way.values().length;
                        }
                        long cq = CLAIMED[(comm + seq) % CLAIMED.length] << 32
                                | (Immediate.encode(Immediate.TYPE_DATA, 1, 0, comm, seq) & 0xffffffffL);
                        post(endpoint, ops[Way.WRITE_ON_DATA_RAIL.ordinal()][comm], ctx -> data.writedata(junk.address,
                                WRITE_BYTES, desc, cq, dataPeer, address, key, ctx));
                        post(endpoint, ops[Way.WRITE_ON_CONTROL_RAIL.ordinal()][comm], ctx -> control.writedata(
                                junk.address, WRITE_BYTES, desc, cq, controlPeer, address, key, ctx));
                        post(endpoint, ops[Way.NOTICE_ON_DATA_RAIL.ordinal()][comm], ctx -> data.senddata(0, 0, 0, cq,
                                dataPeer, ctx));
                    }
                }
                sweeps++;
            }
            // Every forgery completes or fails here before the counts go out, and before this
            // endpoint closes: tcp's rxm crashes the target of a write with CQ data cut short.
            long drained = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (outstanding(ops) > 0 && System.nanoTime() < drained) {
                endpoint.progress();
            }
            StringBuilder summary = new StringBuilder("attacker: " + sweeps + " sweeps begun;");
            for (int comm = 0; comm < COMMS; comm++) {
                long through = 0;
                for (Way way : Way.values()) {
                    through += ops[way.ordinal()][comm].done;
                }
                exchange.publish("attacker.forged." + comm, Long.toString(through));
            }
            for (Way way : Way.values()) {
                long posted = 0;
                long done = 0;
                long failed = 0;
                String why = "";
                for (Counted op : ops[way.ordinal()]) {
                    posted += op.posted;
                    done += op.done;
                    failed += op.failed;
                    why = op.lastFailure != null ? " (" + op.lastFailure + ")" : why;
                }
                summary.append(' ').append(way).append(": ").append(posted).append(" posted, ").append(done)
                        .append(" completed, ").append(failed).append(" failed").append(why).append(';');
            }
            System.out.println(summary);
            exchange.publish("attacker.done", "1");
            long quit = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!exchange.has("victim.done") && System.nanoTime() < quit) {
                endpoint.progress();
            }
            mr.close();
            send.close();
            endpoint.close();
            return outstanding(ops) == 0;
        }
    }

    /** Progresses until the victim's first announcement to this side has arrived, and returns it. */
    private static Announcement firstAnnouncement(RdmaEndpoint endpoint, SendComm send) throws Exception {
        Field field = SendComm.class.getDeclaredField("sequencer");
        field.setAccessible(true);
        Object sequencer = field.get(send);
        Method slotFor = sequencer.getClass().getDeclaredMethod("slotFor", int.class);
        slotFor.setAccessible(true);
        while (true) {
            HostilePeer.check("attacker awaiting an announcement");
            endpoint.progress();
            endpoint.lock();
            try {
                Announcement announcement = (Announcement) slotFor.invoke(sequencer, 0);
                if (announcement.buffers() > 0) {
                    return announcement;
                }
            } finally {
                endpoint.unlock();
            }
        }
    }

    /** Progresses until {@code until} (nanoTime), sleeping a millisecond at a time. */
    private static void pace(RdmaEndpoint endpoint, long until) throws Exception {
        while (System.nanoTime() < until) {
            endpoint.progress();
            Thread.sleep(1);
        }
    }

    private interface Post {
        int post(long context) throws FabricException;
    }

    /** Posts one forgery as {@code op}'s, progressing while the provider refuses it for now. */
    private static void post(RdmaEndpoint endpoint, Counted op, Post post) throws Exception {
        while (true) {
            HostilePeer.check("the attacker's post");
            int rc;
            endpoint.lock();
            try {
                rc = post.post(op.context());
            } finally {
                endpoint.unlock();
            }
            if (rc == Endpoint.POSTED) {
                op.posted++;
                return;
            }
            endpoint.progress();
        }
    }

    private static long outstanding(Counted[][] ops) {
        long n = 0;
        for (Counted[] row : ops) {
            for (Counted op : row) {
                n += op.posted - op.done - op.failed;
            }
        }
        return n;
    }

    /** The completions of forgeries posted with its context, counted; never posted by the engine. */
    private static final class Counted extends Operation {
        private final String name;
        long posted;
        long done;
        long failed;
        String lastFailure;

        Counted(String name) {
            this.name = name;
        }

        @Override
        protected int post() {
            throw new IllegalStateException("posted by the attacker itself");
        }

        @Override
        protected void completed(int rail, long flags, long len, long data) {
            done++;
        }

        @Override
        protected void failed(RdmaException cause) {
            failed++;
            lastFailure = cause.getMessage();
        }

        @Override
        protected String describe() {
            return "forged " + name;
        }
    }
}
