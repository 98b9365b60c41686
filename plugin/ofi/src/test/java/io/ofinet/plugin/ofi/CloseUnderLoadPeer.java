package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.NativeUsage;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Closing under load, over and over: {@code CloseUnderLoadPeer victim DIR FIRST ROUNDS} runs rounds
 * FIRST..FIRST+ROUNDS-1 in one process, {@code CloseUnderLoadPeer senders DIR FIRST ROUNDS} serves them.
 *
 * <p>The senders' process runs two live peers, each a thread of its own, that stream 8 MiB messages
 * both ways with whoever connects. In each round the victim opens the plugin anew, connects to both
 * peers and accepts their connections, posts two 8 MiB sends and two 8 MiB receives on each
 * connection — in odd rounds one receive from the first peer is 1 KiB, so that its {@code test}
 * throws — drives progress for a random while, and closes the whole plugin with everything in
 * flight and both peers still writing. After each close it counts what it holds: file descriptors,
 * its entries in {@code /dev/shm}, libfabric objects and native bytes. It prints every close's
 * duration and fails if a close took longer than {@link #CLOSE_BOUND_NANOS}, if anything was left
 * open after a close, or if at the end it holds a descriptor it did not hold before the plugin was
 * first opened, and still does {@link #SETTLE_NANOS} later (some thread of the JVM may hold one for
 * a moment; a leak stays), naming what the extra ones refer to.
 */
public final class CloseUnderLoadPeer {
    static final int MESSAGE = 8 << 20;
    static final long CLOSE_BOUND_NANOS = Duration.ofSeconds(10).toNanos();
    static final long SETTLE_NANOS = Duration.ofSeconds(2).toNanos();
    private static final long DEADLINE = System.nanoTime() + Duration.ofSeconds(400).toNanos();

    private CloseUnderLoadPeer() {
    }

    public static void main(String[] args) throws Exception {
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        if (args[0].equals("victim")) {
            System.exit(victim(exchange, Integer.parseInt(args[2]), Integer.parseInt(args[3])) ? 0 : 1);
        }
        int first = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        OfiNetPlugin p = new OfiNetPlugin();
        p.init();
        // Each peer's buffer, kept until the plugin is closed (below): a receive may outlive its
        // closeRecv's bound and be written until the endpoint closes.
        ByteBuffer[] buffers = {ByteBuffer.allocateDirect(4 * MESSAGE), ByteBuffer.allocateDirect(4 * MESSAGE)};
        List<Thread> threads = new ArrayList<>();
        for (int peer = 1; peer <= 2; peer++) {
            int me = peer;
            long base = NativeMemory.addressOf(buffers[peer - 1]);
            Thread t = new Thread(() -> {
                try {
                    sender(p, exchange, me, first, rounds, base);
                } catch (Exception | AssertionError e) {
                    e.printStackTrace(System.out);
                    System.exit(1);
                }
            }, "peer" + peer);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        p.close();
        Reference.reachabilityFence(buffers); // as in victim
        System.out.println("senders: done");
    }

    private static void checkDeadline(String what) {
        if (System.nanoTime() > DEADLINE) {
            System.out.println("FAILED: " + what + " did not finish in time");
            System.exit(2);
        }
    }

    /** One connection of the victim with one peer, with its requests. */
    private static final class Link {
        Handles.SendComm send;
        Handles.RecvComm recv;
        final List<Handles.Request> requests = new ArrayList<>();
    }

    private static boolean victim(AddressExchange exchange, int first, int rounds) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(8 * MESSAGE);
        try {
            return victimRounds(exchange, first, rounds, NativeMemory.addressOf(buf));
        } finally {
            // Only its address is used below: unfenced, the compiled loop lets the buffer be
            // collected and its memory freed while the plugin still writes into it.
            Reference.reachabilityFence(buf);
        }
    }

    private static boolean victimRounds(AddressExchange exchange, int first, int rounds, long base) throws Exception {
        SplittableRandom random = new SplittableRandom(42 + first);
        // The JDK's NativePRNG opens /dev/random and /dev/urandom at its first use (a temporary
        // file's name, such as JNA's when it loads) and keeps them for the life of the process:
        // opened here, they are in the baseline rather than counted as the plugin's.
        new SecureRandom().nextInt();
        List<String> fdsBefore = openFiles();
        long longestClose = 0;
        boolean ok = true;
        for (int round = first; round < first + rounds; round++) {
            OfiNetPlugin p = new OfiNetPlugin();
            p.init();
            Handles.ListenComm listen = p.listen(0);
            exchange.publish("victim." + round, listen.handle());
            Link[] links = {new Link(), new Link()};
            for (int peer = 0; peer < 2; peer++) {
                byte[] handle = exchange.await("peer" + (peer + 1) + "." + round, Duration.ofSeconds(60));
                String what = "round " + round + " connecting";
                PeerPair pair = PeerPair.connect(p, listen, handle, () -> checkDeadline(what));
                links[peer].send = pair.send();
                links[peer].recv = pair.recv();
            }
            String thrown = null;
            for (int peer = 0; peer < 2; peer++) {
                Link link = links[peer];
                long region = base + (long) peer * 4 * MESSAGE;
                Handles.MrHandle mr = p.regMr(link.send, region, 4L * MESSAGE, MemoryType.HOST);
                for (int k = 0; k < 2; k++) {
                    long size = round % 2 == 1 && peer == 0 && k == 0 ? 1024 : MESSAGE;
                    link.requests.add(p.irecv(link.recv, 1, new long[] {region + (long) k * MESSAGE},
                            new long[] {size}, new int[] {7}, new Handles.MrHandle[] {mr}));
                    link.requests.add(p.isend(link.send, region + (long) (2 + k) * MESSAGE, MESSAGE, 7, mr));
                }
            }
            // In odd rounds the close comes right after a test threw: the 1 KiB receive refused.
            boolean mustThrow = round % 2 == 1;
            int steps = random.nextInt(300);
            for (int step = 0; step < steps || mustThrow && thrown == null; step++) {
                if (step >= steps) {
                    checkDeadline("round " + round + " waiting for the 1 KiB receive's refusal");
                }
                for (Link link : links) {
                    for (int i = 0; i < link.requests.size(); i++) {
                        Handles.Request r = link.requests.get(i);
                        if (r == null) {
                            continue;
                        }
                        try {
                            if (p.test(r, null)) {
                                link.requests.set(i, null);
                            }
                        } catch (NetException e) {
                            thrown = e.getMessage();
                            link.requests.set(i, null);
                        }
                    }
                }
            }
            long start = System.nanoTime();
            p.close();
            long took = System.nanoTime() - start;
            longestClose = Math.max(longestClose, took);
            exchange.publish("victim." + round + ".closed", "1");
            String left = leftovers();
            int fds = openFiles().size();
            System.out.println("victim: round " + round + ": " + steps + " steps" + (thrown == null ? ""
                    : ", a test threw (" + thrown + ")") + "; close took " + took / 1_000_000 + " ms; " + fds
                    + " fds" + (left.isEmpty() ? "" : "; LEFT OPEN: " + left));
            if (!left.isEmpty() || took > CLOSE_BOUND_NANOS) {
                ok = false;
            }
        }
        // A leak stays; a descriptor some thread of the JVM holds for a moment goes.
        List<String> extra = besides(openFiles(), fdsBefore);
        for (long deadline = System.nanoTime() + SETTLE_NANOS; !extra.isEmpty()
                && System.nanoTime() - deadline < 0; extra = besides(openFiles(), fdsBefore)) {
            Thread.sleep(100);
        }
        System.out.println("victim: " + rounds + " closes under load; longest " + longestClose / 1_000_000
                + " ms; file descriptors " + fdsBefore.size() + " before the plugin was opened, "
                + (extra.isEmpty() ? "none besides them" : extra) + " after it closed");
        if (!extra.isEmpty()) {
            ok = false;
            System.out.println("FAILED: file descriptors leaked: " + extra);
        }
        System.out.println(ok ? "victim: all checks passed" : "FAILED: a close was slow or left something open");
        return ok;
    }

    /** What is still held after the plugin closed: libfabric objects, native bytes, shm names. */
    private static String leftovers() throws IOException {
        List<String> left = new ArrayList<>();
        if (NativeUsage.openObjects() != 0) {
            left.add(NativeUsage.openObjects() + " libfabric objects");
        }
        if (NativeUsage.allocatedBytes() != 0) {
            left.add(NativeUsage.allocatedBytes() + " native bytes");
        }
        long pid = ProcessHandle.current().pid();
        try (Stream<Path> names = Files.list(Path.of("/dev/shm"))) {
            long mine = names.map(n -> n.getFileName().toString())
                    .filter(n -> n.startsWith(pid + ":") || n.startsWith(pid + "_")).count();
            if (mine > 0) {
                left.add(mine + " /dev/shm names");
            }
        }
        return String.join(", ", left);
    }

    /** What each open file descriptor of this process refers to (one descriptor is the listing's own). */
    private static List<String> openFiles() throws IOException {
        List<String> targets = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException closedMeanwhile) {
                    // not open any more
                }
            }
        }
        return targets;
    }

    /** What {@code now} holds besides {@code before}, each as many times as it is open more. */
    private static List<String> besides(List<String> now, List<String> before) {
        List<String> extra = new ArrayList<>(now);
        before.forEach(extra::remove);
        return extra;
    }

    /** A live peer: in each round, serves the victim's new incarnation, streaming until it closes. */
    private static void sender(NetPlugin p, AddressExchange exchange, int me, int first, int rounds, long base)
            throws Exception {
        Handles.ListenComm listen = p.listen(0);
        for (int round = first; round < first + rounds; round++) {
            exchange.publish("peer" + me + "." + round, listen.handle());
            byte[] handle = exchange.await("victim." + round, Duration.ofSeconds(60));
            String what = "peer" + me + " connecting in round " + round;
            PeerPair pair = PeerPair.connect(p, listen, handle, () -> checkDeadline(what));
            Handles.SendComm send = pair.send();
            Handles.RecvComm recv = pair.recv();
            Handles.MrHandle mr = p.regMr(send, base, 4L * MESSAGE, MemoryType.HOST);
            Handles.Request[] sends = new Handles.Request[2];
            Handles.Request[] recvs = new Handles.Request[2];
            boolean failed = false;
            while (!failed && !exchange.has("victim." + round + ".closed")) {
                for (int k = 0; k < 2; k++) {
                    try {
                        if (sends[k] == null) {
                            sends[k] = p.isend(send, base + (long) k * MESSAGE, MESSAGE, 7, mr);
                        } else if (p.test(sends[k], null)) {
                            sends[k] = null;
                        }
                    } catch (NetException e) {
                        // A send the victim's 1 KiB receive refused (invalid usage) is this round's
                        // expected failure; a remote error means the victim closed.
                        sends[k] = null;
                        failed |= e.result() == io.ofinet.plugin.NetResult.REMOTE_ERROR;
                    }
                    try {
                        if (recvs[k] == null) {
                            recvs[k] = p.irecv(recv, 1, new long[] {base + (long) (2 + k) * MESSAGE},
                                    new long[] {MESSAGE}, new int[] {7}, new Handles.MrHandle[] {mr});
                        } else if (p.test(recvs[k], null)) {
                            recvs[k] = null;
                        }
                    } catch (NetException e) {
                        recvs[k] = null;
                        failed = true; // the victim closed: its end of the round
                    }
                }
                checkDeadline("peer" + me + " streaming in round " + round);
            }
            // Receives end with their communicator; sends are waited for (done or failed) before the
            // buffer they read from is deregistered, and then their communicator closes.
            p.closeRecv(recv);
            for (int k = 0; k < 2; k++) {
                while (sends[k] != null) {
                    try {
                        if (p.test(sends[k], null)) {
                            sends[k] = null;
                        }
                    } catch (NetException e) {
                        sends[k] = null;
                    }
                    checkDeadline("peer" + me + " finishing its sends in round " + round);
                }
            }
            p.deregMr(send, mr);
            p.closeSend(send);
        }
        p.closeListen(listen);
    }
}
