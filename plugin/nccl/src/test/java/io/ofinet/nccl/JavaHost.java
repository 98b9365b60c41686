package io.ofinet.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A host that is itself a JVM, as a Java application calling NCCL would be: it loads
 * libnccl-net-ofinet.so through FFM (dlopen by name through LD_LIBRARY_PATH), and the library must
 * attach to this JVM and load ofinet through a class loader of its own — this program's class path
 * has none of ofinet's classes. It connects to itself through the v12 table and moves 4 KiB.
 * Prints "javahost: all checks passed" when every step returned ncclSuccess and the data arrived.
 * Calling native code by address is restricted: deliberate, as that is what it tests.
 */
@SuppressWarnings("restricted")
public final class JavaHost {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static MemorySegment table;

    private JavaHost() {
    }

    /** The table's entry at {@code slot} (8-byte slots, the name first), as a downcall. */
    private static MethodHandle entry(int slot, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(table.get(ValueLayout.ADDRESS, 8L * slot), descriptor);
    }

    private static void ok(Object result, String what) {
        if ((int) result != 0) {
            throw new IllegalStateException(what + " returned " + result);
        }
        System.out.println("ok: " + what);
    }

    public static void main(String[] args) throws Throwable {
        try {
            Class.forName("io.ofinet.plugin.ofi.OfiNetPlugin");
            throw new IllegalStateException("ofinet is on this host's class path: the test proves nothing");
        } catch (ClassNotFoundException expected) {
            System.out.println("ok: ofinet is not on the host's class path");
        }
        table = SymbolLookup.libraryLookup("libnccl-net-ofinet.so", Arena.global()).find("ncclNetPlugin_v12")
                .orElseThrow().reinterpret(176);
        FunctionDescriptor p1 = FunctionDescriptor.of(INT, LONG);
        FunctionDescriptor p2 = FunctionDescriptor.of(INT, LONG, LONG);
        FunctionDescriptor p3 = FunctionDescriptor.of(INT, LONG, LONG, LONG);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            MemorySegment handle = arena.allocate(128);
            MemorySegment buf = arena.allocate(8192, 4096);
            ok(entry(1, FunctionDescriptor.of(INT, LONG, LONG, LONG, LONG, LONG)).invoke(out.address(), 7L, 0L, 0L, 0L),
                    "init attached to this JVM");
            long ctx = out.get(LONG, 0);
            ok(entry(2, p1).invoke(out.address() + 8), "devices: " + out.get(INT, 8));
            ok(entry(4, FunctionDescriptor.of(INT, LONG, INT, LONG, LONG)).invoke(ctx, 0, handle.address(),
                    out.address() + 16), "listen");
            long listen = out.get(LONG, 16);
            MethodHandle connect = entry(5, FunctionDescriptor.of(INT, LONG, INT, LONG, LONG, LONG));
            MethodHandle accept = entry(6, p3);
            long send = 0;
            long recv = 0;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while ((send == 0 || recv == 0) && System.nanoTime() < deadline) {
                if (send == 0) {
                    ok(connect.invoke(ctx, 0, handle.address(), out.address() + 24, 0L), "connect (until non-NULL)");
                    send = out.get(LONG, 24);
                }
                if (recv == 0) {
                    ok(accept.invoke(listen, out.address() + 32, 0L), "accept (until non-NULL)");
                    recv = out.get(LONG, 32);
                }
            }
            MethodHandle regMr = entry(7, FunctionDescriptor.of(INT, LONG, LONG, LONG, INT, LONG));
            ok(regMr.invoke(send, buf.address(), 4096L, 1, out.address() + 40), "regMr (send)");
            ok(regMr.invoke(recv, buf.address() + 4096, 4096L, 1, out.address() + 48), "regMr (receive)");
            long sendMr = out.get(LONG, 40);
            long recvMr = out.get(LONG, 48);
            for (int i = 0; i < 4096; i++) {
                buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            MemorySegment args3 = arena.allocate(64);
            args3.set(LONG, 0, buf.address() + 4096); // data[0]
            args3.set(LONG, 8, 4096); // sizes[0]
            args3.set(INT, 16, 5); // tags[0]
            args3.set(LONG, 24, recvMr); // mhandles[0]
            MethodHandle irecv = entry(11, FunctionDescriptor.of(INT, LONG, INT, LONG, LONG, LONG, LONG, LONG, LONG));
            MethodHandle isend = entry(10, FunctionDescriptor.of(INT, LONG, LONG, LONG, INT, LONG, LONG, LONG));
            MethodHandle test = entry(13, p3);
            long rreq = 0;
            long sreq = 0;
            while (rreq == 0) {
                ok(irecv.invoke(recv, 1, args3.address(), args3.address() + 8, args3.address() + 16, args3.address() + 24,
                        0L, out.address() + 56), "irecv");
                rreq = out.get(LONG, 56);
            }
            while (sreq == 0) {
                ok(isend.invoke(send, buf.address(), 4096L, 5, sendMr, 0L, out.address() + 64), "isend");
                sreq = out.get(LONG, 64);
            }
            boolean sent = false;
            boolean received = false;
            while ((!sent || !received) && System.nanoTime() < deadline) {
                if (!sent) {
                    if ((int) test.invoke(sreq, out.address() + 72, 0L) != 0) {
                        throw new IllegalStateException("test of the send failed");
                    }
                    sent = out.get(INT, 72) == 1;
                }
                if (!received) {
                    if ((int) test.invoke(rreq, out.address() + 72, out.address() + 76) != 0) {
                        throw new IllegalStateException("test of the receive failed");
                    }
                    received = out.get(INT, 72) == 1;
                }
            }
            boolean same = sent && received && out.get(INT, 76) == 4096
                    && MemorySegment.mismatch(buf, 0, 4096, buf, 4096, 8192) == -1;
            if (!same) {
                throw new IllegalStateException("the 4 KiB did not arrive intact");
            }
            System.out.println("ok: 4 KiB through the table, verified");
            MethodHandle deregMr = entry(9, p2);
            ok(deregMr.invoke(send, sendMr), "deregMr (send)");
            ok(deregMr.invoke(recv, recvMr), "deregMr (receive)");
            ok(entry(14, p1).invoke(send), "closeSend");
            ok(entry(15, p1).invoke(recv), "closeRecv");
            ok(entry(16, p1).invoke(listen), "closeListen");
            ok(entry(20, p1).invoke(ctx), "finalize");
        }
        System.out.println("javahost: all checks passed");
        callsOnceTheJvmEnds();
    }

    /**
     * When this JVM ends (main returns), ofinet's shutdown hook tells the library, and from then on
     * no call enters the JVM: a hook of this host's, running beside it, calls devices() for two
     * seconds and prints its last answer; the library says once, on stderr, that the JVM is ending.
     */
    private static void callsOnceTheJvmEnds() {
        MethodHandle devices = entry(2, FunctionDescriptor.of(INT, LONG));
        MemorySegment ndev = Arena.global().allocate(8);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                long until = System.nanoTime() + 2_000_000_000L;
                int rc = 0;
                while (System.nanoTime() < until) {
                    rc = (int) devices.invoke(ndev.address());
                    Thread.sleep(1);
                }
                System.out.println("ok: once the JVM ends, devices answers " + rc);
            } catch (Throwable t) {
                System.out.println("FAILED: " + t);
            }
        }));
    }
}
