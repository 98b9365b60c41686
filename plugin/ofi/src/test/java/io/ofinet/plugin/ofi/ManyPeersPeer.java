package io.ofinet.plugin.ofi;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One process of the many-peers test: {@code ManyPeersPeer hub DIR LEAVES ROUNDS} or {@code
 * ManyPeersPeer leaf DIR INDEX ROUNDS}. Each round the hub listens, every leaf connects and sends
 * one verified 4 KiB message, and all close: each connection closed and opened again ROUNDS times.
 * The hub prints what it holds at round 10 and at the last (see {@link ChurnPeer#figures}).
 */
public final class ManyPeersPeer {
    static final int FIRST_MEASURED = 10;
    private static final int SIZE = 4096;

    private ManyPeersPeer() {
    }

    public static void main(String[] args) throws Exception {
        boolean hub = args[0].equals("hub");
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        int n = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        long deadline = System.nanoTime() + Duration.ofSeconds(400).toNanos();
        NetPlugin p = NetPlugins.load();
        p.init();
        try (HostBuffer buf = new HostBuffer((long) SIZE * (hub ? n : 1))) {
            for (int round = 1; round <= rounds; round++) {
                if (hub) {
                    hubRound(p, exchange, buf, n, round, deadline);
                    if (round == FIRST_MEASURED || round == rounds) {
                        ChurnPeer.settle(p);
                        System.out.println("hub: at " + round + ": " + ChurnPeer.figures(p));
                    }
                } else {
                    leafRound(p, exchange, buf, n, round, deadline);
                }
            }
        }
        p.close();
        System.out.println((hub ? "hub" : "leaf " + n) + ": " + rounds + " rounds done");
    }

    private static void hubRound(NetPlugin p, AddressExchange exchange, HostBuffer buf, int leaves, int round,
            long deadline) throws Exception {
        Handles.ListenComm listen = p.listen(0);
        exchange.publish("handle-" + round, HexFormat.of().formatHex(listen.handle()));
        Handles.RecvComm[] comms = new Handles.RecvComm[leaves];
        Handles.MrHandle[] mrs = new Handles.MrHandle[leaves];
        Handles.Request[] requests = new Handles.Request[leaves];
        for (int i = 0; i < leaves; i++) {
            while (comms[i] == null) {
                comms[i] = p.accept(listen);
                ChurnPeer.inTime(deadline, "accept", round);
            }
            mrs[i] = p.regMr(comms[i], buf.address + (long) SIZE * i, SIZE, MemoryType.HOST);
            // Each leaf's message carries its index in its tag; any order of accepts will do.
            while (requests[i] == null) {
                requests[i] = p.irecv(comms[i], 1, new long[] {buf.address + (long) SIZE * i}, new long[] {SIZE},
                        new int[] {0}, new Handles.MrHandle[] {mrs[i]});
                ChurnPeer.inTime(deadline, "irecv", round);
            }
        }
        for (int i = 0; i < leaves; i++) {
            while (!p.test(requests[i], null)) {
                ChurnPeer.inTime(deadline, "a receive", round);
            }
            byte[] got = buf.bytes((long) SIZE * i, SIZE);
            boolean matched = false;
            for (int leaf = 0; leaf < leaves && !matched; leaf++) {
                try (HostBuffer expected = new HostBuffer(SIZE).pattern(round * 100 + leaf)) {
                    matched = Arrays.equals(expected.bytes(0, SIZE), got);
                }
            }
            if (!matched) {
                throw new IllegalStateException("round " + round + ": a message arrived wrong");
            }
            p.deregMr(comms[i], mrs[i]);
            p.closeRecv(comms[i]);
        }
        p.closeListen(listen);
    }

    private static void leafRound(NetPlugin p, AddressExchange exchange, HostBuffer buf, int index, int round,
            long deadline) throws Exception {
        byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle-" + round, Duration.ofSeconds(120)));
        Handles.SendComm comm = null;
        while (comm == null) {
            comm = p.connect(0, handle, ConnectConfig.DEFAULT);
            ChurnPeer.inTime(deadline, "connect", round);
        }
        Handles.MrHandle mr = p.regMr(comm, buf.address, SIZE, MemoryType.HOST);
        buf.pattern(round * 100 + index);
        Handles.Request r = null;
        while (r == null) {
            r = p.isend(comm, buf.address, SIZE, 0, mr);
            ChurnPeer.inTime(deadline, "isend", round);
        }
        while (!p.test(r, null)) {
            ChurnPeer.inTime(deadline, "the send", round);
        }
        p.deregMr(comm, mr);
        p.closeSend(comm);
    }
}
