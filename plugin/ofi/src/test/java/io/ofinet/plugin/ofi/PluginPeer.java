package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ProviderPolicy;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * One side of the plugin's two-JVM test, loading ofinet through ServiceLoader with the layout in
 * OFINET_LAYOUT: {@code PluginPeer send|recv DIR}. Three connections on one listen communicator:
 * sizes and refusals, then 32 receives and 32 sends of 1 MiB in flight at close, then a transfer.
 * Prints each check; exit status 0 when all passed.
 */
public final class PluginPeer {
    private static final long DEADLINE = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    private static boolean ok = true;

    private PluginPeer() {
    }

    private static void check(boolean condition, String what) {
        System.out.println((condition ? "ok: " : "FAILED: ") + what);
        ok &= condition;
    }

    /** Tests until done; the failure's result, or null when it completed. */
    private static NetResult await(NetPlugin p, Handles.Request r, long[] sizes) {
        try {
            while (!p.test(r, sizes)) {
                if (System.nanoTime() > DEADLINE) {
                    throw new IllegalStateException("a request did not complete in time");
                }
            }
            return null;
        } catch (NetException e) {
            System.out.println("  (" + e.getMessage() + ")");
            return e.result();
        }
    }

    public static void main(String[] args) throws Exception {
        boolean sender = args[0].equals("send");
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        NetPlugin p = NetPlugins.load();
        p.init();
        check(p.name().equals("ofinet") && p.devices() == 1, "ServiceLoader gave the ofinet plugin with one device");
        Handles.ListenComm listen = null;
        byte[] handle;
        if (!sender) {
            listen = p.listen(0);
            exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
            handle = listen.handle();
        } else {
            handle = HexFormat.of().parseHex(exchange.awaitString("handle", Duration.ofSeconds(60)));
        }
        List<HostBuffer> buffers = new ArrayList<>();
        for (int connection = 0; connection < 3; connection++) {
            Handles.Comm comm = null;
            while (comm == null && System.nanoTime() < DEADLINE) {
                comm = sender ? p.connect(0, handle, ConnectConfig.DEFAULT) : p.accept(listen);
            }
            check(comm != null, "connection " + connection);
            HostBuffer buf = new HostBuffer(34 << 20);
            buffers.add(buf);
            Handles.MrHandle mr = p.regMr(comm, buf.address, buf.size, MemoryType.HOST);
            if (connection == 0) {
                sizes(p, sender, comm, buf, mr);
            } else if (connection == 1) {
                for (int i = 0; i < 32; i++) {
                    Handles.Request r = sender
                            ? p.isend((Handles.SendComm) comm, buf.address + ((long) i << 20), 1 << 20, i, mr)
                            : p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address + ((long) i << 20)},
                                    new long[] {1 << 20}, new int[] {i}, new Handles.MrHandle[] {mr});
                    ok &= r != null;
                }
                check(ok, "32 requests of 1 MiB posted; closing with them in flight");
            } else {
                long[] sizes = new long[1];
                // Both buffers are filled before their request is posted: the data may land in the
                // receive buffer as soon as its receive is posted.
                fill(buf, 1 << 20, sender ? 5 : 0);
                Handles.Request r = sender ? p.isend((Handles.SendComm) comm, buf.address, 1 << 20, 1, mr)
                        : p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address}, new long[] {1 << 20},
                                new int[] {1}, new Handles.MrHandle[] {mr});
                check(await(p, r, sizes) == null, "a 1 MiB transfer after reconnecting");
                if (!sender) {
                    HostBuffer expected = new HostBuffer(1 << 20);
                    fill(expected, 1 << 20, 5);
                    check(sizes[0] == 1 << 20 && Arrays.equals(expected.bytes(0, 1 << 20), buf.bytes(0, 1 << 20)),
                            "the data arrived intact");
                    expected.close();
                }
            }
            // Requests may be in flight: they end with their communicator, which then still
            // serves deregMr (before the close, deregMr of a handle in use is refused).
            if (sender) {
                p.closeSend((Handles.SendComm) comm);
            } else {
                p.closeRecv((Handles.RecvComm) comm);
            }
            p.deregMr(comm, mr);
            exchange.publish((sender ? "send" : "recv") + ".closed." + connection, "1");
            // Each side keeps its endpoint progressing until the other has closed this connection too.
            String other = (sender ? "recv" : "send") + ".closed." + connection;
            while (!exchange.has(other) && System.nanoTime() < DEADLINE) {
                p.devices();
                Thread.onSpinWait();
            }
        }
        if (listen != null) {
            p.closeListen(listen);
        }
        p.close();
        buffers.forEach(HostBuffer::close);
        System.out.println(args[0] + (ok ? ": all checks passed" : ": SOME CHECKS FAILED"));
        System.exit(ok ? 0 : 1);
    }

    private static void fill(HostBuffer b, long n, int seed) {
        for (long i = 0; i < n; i += 4096) {
            io.ofinet.fabric.ofi.NativeMemory.putByte(b.address + i, (byte) (seed + i / 4096));
        }
    }

    private static void sizes(NetPlugin p, boolean sender, Handles.Comm comm, HostBuffer buf, Handles.MrHandle mr)
            throws NetException {
        // 4 KiB above the eager size of tcp's default (PluginTwoJvmIT's layout sets none): the send waits
        // for its receive, whose request to send is refused; the send fails and the connection goes on.
        long eager = ProviderPolicy.TCP_EAGER_MAX_SIZE;
        long[] sends = {100, eager + 4096, 2 << 20};
        long[] recvs = {4096, eager, 1 << 20};
        NetResult[] expected = {null, NetResult.INVALID_USAGE, NetResult.INVALID_USAGE};
        for (int i = 0; i < sends.length; i++) {
            long[] sizes = new long[1];
            if (sender) {
                Handles.Request r = p.isend((Handles.SendComm) comm, buf.address, sends[i], i, mr);
                check(await(p, r, null) == expected[i], "send " + sends[i] + " B into " + recvs[i] + " B: " + expected[i]);
            } else {
                long canary = buf.address + recvs[i];
                io.ofinet.fabric.ofi.NativeMemory.fill(canary, 4096, (byte) 0x5A);
                Handles.Request r = p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address}, new long[] {recvs[i]},
                        new int[] {i}, new Handles.MrHandle[] {mr});
                NetResult result = await(p, r, sizes);
                boolean untouched = true;
                for (long k = 0; k < 4096; k++) {
                    untouched &= io.ofinet.fabric.ofi.NativeMemory.getByte(canary + k) == 0x5A;
                }
                check(result == expected[i] && untouched && (result != null || sizes[0] == sends[i]),
                        "receive " + sends[i] + " B into " + recvs[i] + " B: " + expected[i] + ", nothing past it");
            }
        }
        // A grouped receive: three buffers, three sends matched by tag; one send above the eager
        // size, so that the receive is announced.
        long group = eager + 2000;
        if (sender) {
            long[] lengths = {eager + 1000, 700, 80};
            int[] tags = {19, 17, 18};
            List<Handles.Request> rs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                rs.add(p.isend((Handles.SendComm) comm, buf.address, lengths[i], tags[i], mr));
            }
            for (Handles.Request r : rs) {
                check(await(p, r, null) == null, "grouped send");
            }
        } else {
            long[] sizes = new long[3];
            Handles.Request r = p.irecv((Handles.RecvComm) comm, 3,
                    new long[] {buf.address, buf.address + group, buf.address + 2 * group},
                    new long[] {group, group, group},
                    new int[] {17, 18, 19}, new Handles.MrHandle[] {mr, mr, mr});
            check(await(p, r, sizes) == null && Arrays.equals(sizes, new long[] {700, 80, eager + 1000}),
                    "grouped receive sizes " + Arrays.toString(sizes));
        }
        // An eager message (5 KiB) into a 4 KiB buffer: the send has gone out before the receiver
        // refuses it, so it stays completed; the receive fails, nothing is written, and the pair
        // goes on (docs/PLUGIN.md, "A refused message").
        if (sender) {
            NetResult first = await(p, p.isend((Handles.SendComm) comm, buf.address, 5 << 10, 3, mr), null);
            NetResult next = await(p, p.isend((Handles.SendComm) comm, buf.address, 8, 4, mr), null);
            check(first == null && next == null, "an eager send the receiver refused stays completed, and the next"
                    + " goes: " + first + ", then " + next);
        } else {
            long canary = buf.address + 4096;
            io.ofinet.fabric.ofi.NativeMemory.fill(canary, 4096, (byte) 0x5A);
            NetResult result = await(p, p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address},
                    new long[] {4096}, new int[] {3}, new Handles.MrHandle[] {mr}), new long[1]);
            boolean untouched = true;
            for (long k = 0; k < 4096; k++) {
                untouched &= io.ofinet.fabric.ofi.NativeMemory.getByte(canary + k) == 0x5A;
            }
            check(result == NetResult.INVALID_USAGE && untouched, "receive 5120 B eagerly into 4096 B: " + result
                    + ", nothing past it");
            NetResult next = await(p, p.irecv((Handles.RecvComm) comm, 1, new long[] {buf.address},
                    new long[] {8}, new int[] {4}, new Handles.MrHandle[] {mr}), new long[1]);
            check(next == null, "then the next message arrives: " + next);
        }
    }
}
