package io.ofinet.nccl;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.ofi.OfiNetPlugin;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * The Java twin of {@code nccl_driver crossing}: the same calls on the same plugin, made from Java
 * — devices(), test() of a receive that nothing completes, and an 8-byte isend/irecv pair to
 * itself tested to done — so that the difference per call is the crossing's cost.
 */
public final class CrossingJava {
    private CrossingJava() {
    }

    public static void main(String[] args) throws Exception {
        NetPlugin p = new OfiNetPlugin();
        p.init();
        int sink = 0;
        for (int round = 0; round < 5; round++) {
            int calls = 2_000_000;
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                sink += p.devices();
            }
            System.out.printf(Locale.ROOT, "java: round %d: %.1f ns per devices() call%n", round,
                    (System.nanoTime() - start) / (double) calls);
        }
        Handles.ListenComm listen = p.listen(0);
        // Two connections to itself: one keeps a receive waiting, the other moves the pairs.
        Handles.SendComm[] sends = new Handles.SendComm[2];
        Handles.RecvComm[] recvs = new Handles.RecvComm[2];
        for (int c = 0; c < 2; c++) {
            while (sends[c] == null || recvs[c] == null) {
                sends[c] = sends[c] != null ? sends[c] : p.connect(0, listen.handle(), ConnectConfig.DEFAULT);
                recvs[c] = recvs[c] != null ? recvs[c] : p.accept(listen);
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8192, 4096);
            Handles.SendComm send = sends[1];
            Handles.RecvComm recv = recvs[0];
            Handles.MrHandle smr = p.regMr(send, buf.address(), 4096, MemoryType.HOST);
            Handles.MrHandle rmr = p.regMr(recv, buf.address() + 4096, 4096, MemoryType.HOST);
            Handles.MrHandle pairMr = p.regMr(recvs[1], buf.address() + 4096, 4096, MemoryType.HOST);
            long[] one = {buf.address() + 4096};
            long[] eight = {8};
            int[] tag99 = {99};
            int[] tag1 = {1};
            long[] pairData = {buf.address() + 4096 + 16};
            Handles.MrHandle[] rmrs = {rmr};
            Handles.MrHandle[] pairMrs = {pairMr};
            long[] sizes = new long[8];
            Handles.Request waiting = null;
            while (waiting == null) {
                waiting = p.irecv(recv, 1, one, eight, tag99, rmrs);
            }
            for (int round = 0; round < 5; round++) {
                int calls = 500_000;
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    if (p.test(waiting, sizes)) {
                        throw new IllegalStateException("a receive that nothing completes completed");
                    }
                }
                System.out.printf(Locale.ROOT, "java: round %d: %.1f ns per test() of a request not done%n", round,
                        (System.nanoTime() - start) / (double) calls);
            }
            for (int round = 0; round < 5; round++) {
                int pairs = 50_000;
                long calls = 0;
                long start = System.nanoTime();
                for (int i = 0; i < pairs; i++) {
                    Handles.Request r = null;
                    Handles.Request s = null;
                    while (r == null) {
                        r = p.irecv(recvs[1], 1, pairData, eight, tag1, pairMrs);
                        calls++;
                    }
                    while (s == null) {
                        s = p.isend(send, buf.address(), 8, 1, smr);
                        calls++;
                    }
                    boolean sdone = false;
                    boolean rdone = false;
                    while (!sdone || !rdone) {
                        sdone = sdone || p.test(s, null);
                        rdone = rdone || p.test(r, sizes);
                        calls += 2;
                    }
                }
                long ns = System.nanoTime() - start;
                System.out.printf(Locale.ROOT, "java: round %d: %.1f ns per call of an 8-byte isend/irecv pair tested"
                        + " to done (%.2f calls a pair, %.2f us a pair)%n", round, ns / (double) calls,
                        calls / (double) pairs, ns / 1000.0 / pairs);
            }
        }
        System.out.println(sink == 0 ? "" : "java: done");
        System.exit(0);
    }
}
