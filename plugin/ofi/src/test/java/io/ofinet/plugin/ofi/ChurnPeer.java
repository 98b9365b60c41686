package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeUsage;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One side of the churn test: {@code ChurnPeer send|recv DIR LIFETIMES}. Repeats one communicator
 * lifetime through {@link NetPlugin} only — listen, connect/accept, regMr, one verified 4 KiB
 * message, deregMr, closeSend/closeRecv, closeListen — and prints what the process holds at
 * lifetime 200 and at the last: heap after a full collection, native bytes, address vector
 * entries, registrations, libfabric objects, file descriptors and /dev/shm names.
 */
public final class ChurnPeer {
    static final int SIZE = 4096;
    static final int FIRST_MEASURED = 200;

    private ChurnPeer() {
    }

    public static void main(String[] args) throws Exception {
        boolean sender = args[0].equals("send");
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        int lifetimes = Integer.parseInt(args[2]);
        long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[3])).toNanos();
        NetPlugin p = NetPlugins.load();
        p.init();
        String side = sender ? "send" : "recv";
        try (HostBuffer buf = new HostBuffer(SIZE)) {
            for (int lifetime = 1; lifetime <= lifetimes; lifetime++) {
                if (sender) {
                    sendOnce(p, exchange, buf, lifetime, deadline);
                } else {
                    receiveOnce(p, exchange, buf, lifetime, deadline);
                }
                if (lifetime == FIRST_MEASURED || lifetime == lifetimes) {
                    // The peer's last words (close signals) and the address vector's sweep come
                    // with progress: give them a moment, through a plugin call that drives it.
                    settle(p);
                    System.out.println(side + ": at " + lifetime + ": " + figures(p));
                }
            }
        }
        exchange.publish(side + "-done", "1");
        exchange.await((sender ? "recv" : "send") + "-done", Duration.ofSeconds(120));
        p.close();
        System.out.println(side + ": " + lifetimes + " lifetimes done");
    }

    private static void sendOnce(NetPlugin p, AddressExchange exchange, HostBuffer buf, int lifetime, long deadline)
            throws Exception {
        byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle-" + lifetime, Duration.ofSeconds(60)));
        Handles.SendComm comm = null;
        while (comm == null) {
            comm = p.connect(0, handle, ConnectConfig.DEFAULT);
            inTime(deadline, "connect", lifetime);
        }
        Handles.MrHandle mr = p.regMr(comm, buf.address, SIZE, MemoryType.HOST);
        buf.pattern(lifetime);
        Handles.Request r = null;
        while (r == null) {
            r = p.isend(comm, buf.address, SIZE, 0, mr);
            inTime(deadline, "isend", lifetime);
        }
        while (!p.test(r, null)) {
            inTime(deadline, "the send", lifetime);
        }
        p.deregMr(comm, mr);
        p.closeSend(comm);
    }

    private static void receiveOnce(NetPlugin p, AddressExchange exchange, HostBuffer buf, int lifetime, long deadline)
            throws Exception {
        Handles.ListenComm listen = p.listen(0);
        exchange.publish("handle-" + lifetime, HexFormat.of().formatHex(listen.handle()));
        Handles.RecvComm comm = null;
        while (comm == null) {
            comm = p.accept(listen);
            inTime(deadline, "accept", lifetime);
        }
        Handles.MrHandle mr = p.regMr(comm, buf.address, SIZE, MemoryType.HOST);
        buf.fill((byte) 0);
        Handles.Request r = null;
        while (r == null) {
            r = p.irecv(comm, 1, new long[] {buf.address}, new long[] {SIZE}, new int[] {0},
                    new Handles.MrHandle[] {mr});
            inTime(deadline, "irecv", lifetime);
        }
        long[] sizes = new long[1];
        while (!p.test(r, sizes)) {
            inTime(deadline, "the receive", lifetime);
        }
        try (HostBuffer expected = new HostBuffer(SIZE).pattern(lifetime)) {
            if (sizes[0] != SIZE || !java.util.Arrays.equals(expected.bytes(0, SIZE), buf.bytes(0, SIZE))) {
                throw new IllegalStateException("lifetime " + lifetime + ": the message arrived wrong (" + sizes[0]
                        + " bytes)");
            }
        }
        p.deregMr(comm, mr);
        p.closeRecv(comm);
        p.closeListen(listen);
    }

    static void inTime(long deadline, String what, int lifetime) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("lifetime " + lifetime + ": " + what + " did not finish in time");
        }
    }

    /** A few seconds of progress through an idle listen communicator, then two full collections. */
    static void settle(NetPlugin p) throws Exception {
        Handles.ListenComm idle = p.listen(0);
        long until = System.nanoTime() + 2_500_000_000L;
        while (System.nanoTime() < until) {
            p.accept(idle);
            Thread.sleep(1);
        }
        p.closeListen(idle);
        System.gc();
        System.gc();
    }

    static String figures(NetPlugin p) throws Exception {
        Map<String, Long> stats = p.statistics(0);
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return "heapBytes=" + heap + " nativeBytes=" + NativeUsage.allocatedBytes() + " addressEntries="
                + NativeUsage.addressEntries() + " registrations=" + NativeUsage.registrations() + " openObjects="
                + NativeUsage.openObjects() + " fds=" + count(Path.of("/proc/self/fd")) + " shmNames="
                + shmNames() + " mailboxesKept=" + stats.get("mailboxesKept") + " droppedUnknownComm="
                + stats.get("droppedUnknownComm");
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    private static long shmNames() throws IOException {
        String prefix = ProcessHandle.current().pid() + ":";
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            return s.filter(f -> f.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
