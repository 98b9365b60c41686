package io.ofinet.nccl;

import io.ofinet.plugin.ofi.OfiNetPlugin;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * {@code nccl_driver crossing}'s calls made on the door from Java: the same door code, the same C
 * memory for NCCL's arguments, only the upcall missing. With {@link CrossingJava} (the plugin's own
 * calls) it splits the table's cost per call into the door's work and the crossing itself. With the
 * argument {@code idle} the door runs over {@link IdlePlugin}, which answers at once: the figures
 * ("alone:") are then the door's own work per call.
 */
public final class CrossingDoor {
    private CrossingDoor() {
    }

    private static void ok(int result, String what) {
        if (result != NcclDoor.SUCCESS) {
            throw new IllegalStateException(what + " returned " + result);
        }
    }

    public static void main(String[] args) {
        boolean idle = args.length > 0 && args[0].equals("idle");
        String prefix = idle ? "alone" : "door";
        // Calls on the idle plugin are cheap: more of them, for the JIT to settle before the last round.
        int scale = idle ? 20 : 1;
        NcclDoor door = new NcclDoor(idle ? new IdlePlugin() : new OfiNetPlugin(), new NcclDoor.Log() {
            @Override
            public void warn(String message) {
                System.out.println(prefix + ": WARN " + message);
            }

            @Override
            public void info(String message) {
            }
        });
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(64 * 8, 8);
            long o = out.address();
            ok(door.init(o, 1, 0, false), "init");
            long ctx = out.get(ValueLayout.JAVA_LONG, 0);
            for (int round = 0; round < 5; round++) {
                int calls = 2_000_000;
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    ok(door.devices(o + 8), "devices");
                }
                System.out.printf(Locale.ROOT, "%s: round %d: %.1f ns per devices() call%n", prefix, round,
                        (System.nanoTime() - start) / (double) calls);
            }
            MemorySegment handle = arena.allocate(NcclDoor.HANDLE_BYTES);
            ok(door.listen(ctx, 0, handle.address(), o + 16), "listen");
            long listen = out.get(ValueLayout.JAVA_LONG, 16);
            MemorySegment buf = arena.allocate(8192, 4096);
            long[] sends = new long[2];
            long[] recvs = new long[2];
            long[] smrs = new long[2];
            long[] rmrs = new long[2];
            for (int c = 0; c < 2; c++) {
                while (sends[c] == 0 || recvs[c] == 0) {
                    if (sends[c] == 0) {
                        ok(door.connect(ctx, 0, handle.address(), o + 24), "connect");
                        sends[c] = out.get(ValueLayout.JAVA_LONG, 24);
                    }
                    if (recvs[c] == 0) {
                        ok(door.accept(listen, o + 32), "accept");
                        recvs[c] = out.get(ValueLayout.JAVA_LONG, 32);
                    }
                }
                ok(door.regMr(sends[c], buf.address(), 4096, 1, o + 40), "regMr");
                smrs[c] = out.get(ValueLayout.JAVA_LONG, 40);
                ok(door.regMr(recvs[c], buf.address() + 4096, 4096, 1, o + 40), "regMr");
                rmrs[c] = out.get(ValueLayout.JAVA_LONG, 40);
            }
            // NCCL's argument arrays, one element each, at fixed offsets of out.
            long data = o + 64;
            long size = o + 72;
            long tag = o + 80;
            long mhandle = o + 88;
            long request = o + 96;
            long done = o + 104;
            out.set(ValueLayout.JAVA_LONG, 64, buf.address() + 4096);
            out.set(ValueLayout.JAVA_LONG, 72, 8);
            // A tag nothing sends to: the receive stays pending, on the idle plugin as on the real one.
            out.set(ValueLayout.JAVA_INT, 80, IdlePlugin.PENDING_TAG);
            out.set(ValueLayout.JAVA_LONG, 88, rmrs[0]);
            long waiting = 0;
            while (waiting == 0) {
                ok(door.irecv(recvs[0], 1, data, size, tag, mhandle, request), "irecv");
                waiting = out.get(ValueLayout.JAVA_LONG, 96);
            }
            for (int round = 0; round < 5; round++) {
                int calls = 500_000 * scale;
                long start = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    ok(door.test(waiting, done, 0), "test");
                    if (out.get(ValueLayout.JAVA_INT, 104) != 0) {
                        throw new IllegalStateException("a receive that nothing completes completed");
                    }
                }
                System.out.printf(Locale.ROOT, "%s: round %d: %.1f ns per test() of a request not done%n", prefix,
                        round, (System.nanoTime() - start) / (double) calls);
            }
            out.set(ValueLayout.JAVA_LONG, 64, buf.address() + 4096 + 16);
            out.set(ValueLayout.JAVA_INT, 80, 1);
            out.set(ValueLayout.JAVA_LONG, 88, rmrs[1]);
            for (int round = 0; round < 5; round++) {
                int pairs = 50_000 * scale;
                long calls = 0;
                long start = System.nanoTime();
                for (int i = 0; i < pairs; i++) {
                    long r = 0;
                    long s = 0;
                    while (r == 0) {
                        ok(door.irecv(recvs[1], 1, data, size, tag, mhandle, request), "irecv");
                        r = out.get(ValueLayout.JAVA_LONG, 96);
                        calls++;
                    }
                    while (s == 0) {
                        ok(door.isend(sends[1], buf.address(), 8, 1, smrs[1], request), "isend");
                        s = out.get(ValueLayout.JAVA_LONG, 96);
                        calls++;
                    }
                    boolean sdone = false;
                    boolean rdone = false;
                    while (!sdone || !rdone) {
                        if (!sdone) {
                            ok(door.test(s, done, 0), "test");
                            sdone = out.get(ValueLayout.JAVA_INT, 104) != 0;
                        }
                        if (!rdone) {
                            ok(door.test(r, done, 0), "test");
                            rdone = out.get(ValueLayout.JAVA_INT, 104) != 0;
                        }
                        calls += 2;
                    }
                }
                long ns = System.nanoTime() - start;
                System.out.printf(Locale.ROOT, "%s: round %d: %.1f ns per call of an 8-byte isend/irecv pair tested"
                        + " to done (%.2f calls a pair, %.2f us a pair)%n", prefix, round, ns / (double) calls,
                        calls / (double) pairs, ns / 1000.0 / pairs);
            }
        }
        System.exit(0);
    }
}
