package io.ofinet.plugin.ofi;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import io.ofinet.plugin.NetResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One side of the refusal test: {@code RefusalPeer send|recv DIR}. Two connections, A and B, on one
 * endpoint each side. On A: two messages whose receives are posted in the other order of their
 * tags, then the size matrix — equal sizes,
 * smaller into larger, larger into smaller for eager and rendezvous sizes — with a 1 KiB exchange
 * after each case and one on B. Each step must end within {@link #STEP_SECONDS} (far below
 * peerTimeoutMs): a refusal is reported by the call it belongs to and the pair goes on.
 */
public final class RefusalPeer {
    static final long STEP_SECONDS = 10;
    private static final int CANARY = 64;
    private static final long MiB = 1 << 20;
    /** {send bytes, receive buffer bytes}. */
    static final long[][] MATRIX = {{0, 0}, {1, 1}, {1024, 1024}, {65536, 65536}, {MiB, MiB}, {8 * MiB, 8 * MiB},
        {100, 4096}, {3 * MiB, 8 * MiB}, {8192, 4096}, {100, 1}, {1, 0}, {5120, 4096}, {2 * MiB, MiB}};
    private static boolean ok = true;

    private RefusalPeer() {
    }

    private static void check(boolean condition, String what) {
        System.out.println((condition ? "ok: " : "FAILED: ") + what);
        ok &= condition;
    }

    /** Tests until done; the failure, or null when it completed. Fails the step past its bound. */
    static NetException await(NetPlugin p, Handles.Request r, long[] sizes) throws NetException {
        long deadline = System.nanoTime() + Duration.ofSeconds(STEP_SECONDS).toNanos();
        try {
            while (!p.test(r, sizes)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("a request did not end within " + STEP_SECONDS + " s");
                }
            }
            return null;
        } catch (NetException e) {
            return e;
        }
    }

    public static void main(String[] args) throws Exception {
        boolean sender = args[0].equals("send");
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        NetPlugin p = NetPlugins.load();
        p.init();
        Handles.Comm a;
        Handles.Comm b;
        if (sender) {
            byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", Duration.ofSeconds(60)));
            a = connect(p, handle);
            b = connect(p, handle);
        } else {
            Handles.ListenComm listen = p.listen(0);
            exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
            a = accept(p, listen);
            b = accept(p, listen);
        }
        try (HostBuffer buf = new HostBuffer(8 * MiB + 2 * CANARY)) {
            Handles.MrHandle mrA = p.regMr(a, buf.address, buf.size, MemoryType.HOST);
            Handles.MrHandle mrB = p.regMr(b, buf.address, buf.size, MemoryType.HOST);
            Side side = new Side(p, sender, buf, mrA, mrB, a, b, new int[1]);
            side.otherTagFirst();
            for (int i = 0; i < MATRIX.length; i++) {
                side.matrixCase(i, MATRIX[i][0], MATRIX[i][1]);
                side.exchange(a, mrA, 1024, 1000 + i, "A");
                side.exchange(b, mrB, 1024, 2000 + i, "B");
            }
            if (sender) {
                // The matrix's cases that went eagerly.
                long refused = p.statistics(a).get("refusedAfterDone");
                long expected = side.eagerRefused()[0];
                check(refused == expected, "A's statistics count the " + expected + " eager messages refused after"
                        + " they completed: " + refused);
            }
        }
        System.out.println(ok ? (sender ? "send" : "recv") + ": all checks passed" : "some checks FAILED");
        System.exit(ok ? 0 : 1);
    }

    private static Handles.SendComm connect(NetPlugin p, byte[] handle) throws NetException {
        Handles.SendComm c = null;
        while (c == null) {
            c = p.connect(0, handle, ConnectConfig.DEFAULT);
        }
        return c;
    }

    private static Handles.RecvComm accept(NetPlugin p, Handles.ListenComm listen) throws NetException {
        Handles.RecvComm c = null;
        while (c == null) {
            c = p.accept(listen);
        }
        return c;
    }

    /** One side's steps. The receive buffer sits between canaries: [CANARY | data | CANARY]. */
    private record Side(NetPlugin p, boolean sender, HostBuffer buf, Handles.MrHandle mrA, Handles.MrHandle mrB,
            Handles.Comm a, Handles.Comm b, int[] eagerRefused) {

        Handles.Request post(Handles.Comm comm, Handles.MrHandle mr, long size, int tag) throws NetException {
            Handles.Request r = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(STEP_SECONDS).toNanos();
            while (r == null && System.nanoTime() < deadline) {
                r = sender ? p.isend((Handles.SendComm) comm, buf.address, size, tag, mr)
                        : p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address + CANARY}, new long[] {size},
                                new int[] {tag}, new Handles.MrHandle[] {mr});
            }
            if (r == null) {
                throw new IllegalStateException("could not post within " + STEP_SECONDS + " s");
            }
            return r;
        }

        /**
         * 64 B with tag 1, then 64 B with tag 2, into a receive with tag 2 posted first and one with
         * tag 1 after it: each send fills the buffer with its tag, not the one posted first.
         */
        void otherTagFirst() throws NetException {
            if (sender) {
                for (int tag = 1; tag <= 2; tag++) {
                    buf.pattern(tag);
                    NetException e = await(p, post(a, mrA, 64, tag), null);
                    check(e == null, "A: the 64 B send with tag " + tag + " is done" + (e == null ? "" : ": " + e));
                }
            } else {
                for (int tag = 2; tag >= 1; tag--) {
                    long[] sizes = new long[1];
                    NetException e = await(p, post(a, mrA, 64, tag), sizes);
                    check(e == null && sizes[0] == 64 && matches(64, tag), "A: the receive with tag " + tag
                            + " gets the send with tag " + tag + (e == null ? "" : ": " + e));
                }
            }
        }

        void matrixCase(int i, long sent, long capacity) throws NetException {
            String what = "A: " + sent + " bytes into " + capacity;
            long start = System.nanoTime();
            if (sender) {
                buf.pattern(100 + i);
                NetException e = await(p, post(a, mrA, sent, 10), null);
                if (sent <= capacity) {
                    check(e == null, what + ": the send is done" + (e == null ? "" : ": " + e));
                } else if (e == null) {
                    // It went eagerly before the receive's announcement: done when copied out; the
                    // receiver's refusal is counted on the communicator.
                    check(sent <= 8192, what + ": the send is done (eager)");
                    eagerRefused[0]++;
                } else {
                    // It met the receive's announcement first: it fails at its own test, with its size.
                    check(e.result() == NetResult.INVALID_USAGE && e.getMessage().contains(sent + " bytes"),
                            what + ": the send fails at its own test with its own size: " + e);
                }
            } else {
                buf.fill((byte) 0x5A);
                long[] sizes = new long[1];
                NetException e = await(p, post(a, mrA, capacity, 10), sizes);
                if (sent > capacity) {
                    check(e != null && e.result() == NetResult.INVALID_USAGE, what + ": the receive fails: " + e);
                    check(untouched(CANARY, capacity + CANARY), what + ": nothing written, canaries intact");
                } else {
                    check(e == null && sizes[0] == sent && matches(sent, 100 + i)
                            && untouched(CANARY + sent, capacity - sent + CANARY) && untouched(0, CANARY),
                            what + ": received intact, canaries intact" + (e == null ? "" : ": " + e));
                }
            }
            check(System.nanoTime() - start < Duration.ofSeconds(STEP_SECONDS).toNanos(), what + ": in time");
        }

        void exchange(Handles.Comm comm, Handles.MrHandle mr, long size, int seed, String name) throws NetException {
            if (sender) {
                buf.pattern(seed);
                check(await(p, post(comm, mr, size, 7), null) == null, name + ": 1 KiB exchange " + seed + " sent");
            } else {
                long[] sizes = new long[1];
                NetException e = await(p, post(comm, mr, size, 7), sizes);
                check(e == null && sizes[0] == size && matches(size, seed), name + ": 1 KiB exchange " + seed
                        + " received" + (e == null ? "" : ": " + e));
            }
        }

        private boolean matches(long n, int seed) {
            try (HostBuffer expected = new HostBuffer(Math.max(n, 1)).pattern(seed)) {
                return n == 0 || Arrays.equals(expected.bytes(0, (int) n), buf.bytes(CANARY, (int) n));
            }
        }

        private boolean untouched(long from, long length) {
            for (long i = from; i < from + length; i++) {
                if (buf.get(i) != 0x5A) {
                    return false;
                }
            }
            return true;
        }
    }
}
