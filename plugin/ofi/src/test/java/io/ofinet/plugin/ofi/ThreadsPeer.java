package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One side of the shared-endpoint thread test: {@code ThreadsPeer NAME OTHER DIR THREADS MESSAGES ROUNDS}.
 *
 * <p>Both sides listen and connect from the main thread, so that every communicator of the exchange
 * lives on one endpoint per process: THREADS connected send communicators and THREADS accepted
 * receive communicators. Worker thread i then drives only its own pair — sends to the peer's worker
 * i and receives from it — with several requests in flight, sizes from 0 B to 1 MiB, every byte and
 * every reported size checked. Meanwhile a side thread registers and deregisters buffers for a
 * communicator of the shared endpoint, connects and accepts further connections (accepted on the
 * shared listener) and closes them idle. Exit status 0 when every check passed.
 */
public final class ThreadsPeer {
    private static final int WINDOW = 8;
    private static final int SLOT = Payloads.MAX_BYTES;
    /**
     * How long the process may go without any progress (a message sent or received, a connection
     * made or accepted, a pair matched) before it counts as hung: a bound on a stall, not on the
     * run, so that a machine busy with other work slows the run without failing it.
     */
    private static final long STALL_NANOS = TestTime.nanos(60_000);
    private static final AtomicLong lastProgress = new AtomicLong(System.nanoTime());

    private final NetPlugin p;
    private final String me;
    private final String other;
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean workersDone = new AtomicBoolean();
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    /**
     * Every direct buffer whose address was given to the plugin, kept until the plugin is closed: a
     * receive may outlive its communicator's close bound and be written until the endpoint closes.
     */
    private final ConcurrentLinkedQueue<ByteBuffer> kept = new ConcurrentLinkedQueue<>();

    private ThreadsPeer(NetPlugin p, String me, String other) {
        this.p = p;
        this.me = me;
        this.other = other;
    }

    public static void main(String[] args) throws Exception {
        String me = args[0];
        String other = args[1];
        AddressExchange exchange = new AddressExchange(Path.of(args[2]));
        int threads = Integer.parseInt(args[3]);
        int perThread = Integer.parseInt(args[4]);
        int rounds = Integer.parseInt(args[5]);
        NetPlugin p = NetPlugins.load();
        p.init();
        ThreadsPeer peer = new ThreadsPeer(p, me, other);
        // Two listen communicators on the main thread's endpoint: one for the workers' connections,
        // one for the side thread's extra connections, so that neither takes the other's.
        Handles.ListenComm listen = p.listen(0);
        Handles.ListenComm churnListen = p.listen(0);
        exchange.publish(me + ".handle", listen.handle());
        exchange.publish(me + ".churn", churnListen.handle());
        byte[] handle = exchange.await(other + ".handle", Duration.ofSeconds(60));
        byte[] churnHandle = exchange.await(other + ".churn", Duration.ofSeconds(60));
        for (int round = 0; round < rounds && peer.failures.isEmpty(); round++) {
            peer.round(round, listen, handle, churnListen, churnHandle, threads, perThread);
            System.out.println("round " + round + ": " + peer.messages.get() + " messages, " + peer.bytes.get()
                    + " bytes verified so far");
        }
        exchange.publish(me + ".done", "1");
        exchange.await(other + ".done", Duration.ofSeconds(120));
        p.closeListen(listen);
        p.closeListen(churnListen);
        p.close();
        Reference.reachabilityFence(peer.kept);
        peer.failures.forEach(f -> System.out.println("FAILED: " + f));
        boolean ok = peer.failures.isEmpty();
        System.out.println(me + (ok ? ": all checks passed" : ": SOME CHECKS FAILED"));
        System.exit(ok ? 0 : 1);
    }

    private static void progressed() {
        lastProgress.set(System.nanoTime());
    }

    private static void checkDeadline(String what) {
        long idle = System.nanoTime() - lastProgress.get();
        if (idle > STALL_NANOS) {
            throw new IllegalStateException(what + ": nothing progressed in this process for " + idle / 1_000_000
                    + " ms");
        }
    }

    /** Connects THREADS send communicators and accepts THREADS receive communicators, then runs the workers. */
    private void round(int round, Handles.ListenComm listen, byte[] handle, Handles.ListenComm churnListen,
            byte[] churnHandle, int threads, int perThread) throws Exception {
        Handles.SendComm[] sends = new Handles.SendComm[threads];
        List<Handles.RecvComm> accepted = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            while (sends[i] == null) {
                sends[i] = p.connect(0, handle, ConnectConfig.DEFAULT);
                Handles.RecvComm r = p.accept(listen);
                if (r != null) {
                    accepted.add(r);
                }
                if (sends[i] != null || r != null) {
                    progressed();
                }
                checkDeadline("connecting");
            }
        }
        while (accepted.size() < threads) {
            Handles.RecvComm r = p.accept(listen);
            if (r != null) {
                accepted.add(r);
                progressed();
            }
            checkDeadline("accepting");
        }
        Handles.RecvComm[] recvs = pair(sends, accepted);
        workersDone.set(false);
        Thread side = new Thread(() -> churn(churnListen, churnHandle, sends[0]), "churn");
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> work(round, index, sends[index], recvs[index], perThread), "worker-" + i);
            workers.add(t);
        }
        side.start();
        workers.forEach(Thread::start);
        for (Thread t : workers) {
            t.join();
        }
        workersDone.set(true);
        side.join();
        for (int i = 0; i < threads; i++) {
            p.closeSend(sends[i]);
            p.closeRecv(recvs[i]);
        }
    }

    /** Which accepted communicator receives from the peer's worker i: each send communicator announces its index. */
    private Handles.RecvComm[] pair(Handles.SendComm[] sends, List<Handles.RecvComm> accepted) throws NetException {
        int n = sends.length;
        ByteBuffer buf = ByteBuffer.allocateDirect(8 * 2 * n).order(ByteOrder.nativeOrder());
        kept.add(buf);
        long base = NativeMemory.addressOf(buf);
        Handles.Request[] sent = new Handles.Request[n];
        Handles.Request[] received = new Handles.Request[n];
        Handles.MrHandle[] mrs = new Handles.MrHandle[n];
        for (int i = 0; i < n; i++) {
            mrs[i] = p.regMr(sends[i], base, buf.capacity(), MemoryType.HOST);
            buf.putLong(8 * i, i);
        }
        for (int i = 0; i < n; i++) {
            while (sent[i] == null) {
                sent[i] = p.isend(sends[i], base + 8L * i, 8, 7, mrs[i]);
            }
            while (received[i] == null) {
                received[i] = p.irecv(accepted.get(i), 1, new long[] {base + 8L * (n + i)}, new long[] {8},
                        new int[] {7}, new Handles.MrHandle[] {mrs[i]});
            }
        }
        Handles.RecvComm[] byIndex = new Handles.RecvComm[n];
        boolean[] sentDone = new boolean[n];
        boolean[] receivedDone = new boolean[n];
        for (int left = 2 * n; left > 0; ) {
            for (int i = 0; i < n; i++) {
                if (!sentDone[i] && p.test(sent[i], null)) {
                    sentDone[i] = true;
                    left--;
                    progressed();
                }
                if (!receivedDone[i] && p.test(received[i], null)) {
                    receivedDone[i] = true;
                    left--;
                    byIndex[(int) buf.getLong(8 * (n + i))] = accepted.get(i);
                    progressed();
                }
            }
            checkDeadline("pairing");
        }
        for (int i = 0; i < n; i++) {
            p.deregMr(sends[i], mrs[i]);
        }
        return byIndex;
    }

    /** Worker i: MESSAGES messages each way on its own communicator pair, WINDOW in flight each way. */
    private void work(int round, int index, Handles.SendComm send, Handles.RecvComm recv, int count) {
        String who = me + " worker " + index + " round " + round;
        ByteBuffer buf = ByteBuffer.allocateDirect(2 * WINDOW * SLOT).order(ByteOrder.nativeOrder());
        kept.add(buf);
        long base = NativeMemory.addressOf(buf);
        long sendSeed = Payloads.seed(me, round, index);
        long recvSeed = Payloads.seed(other, round, index);
        Handles.Request[] sendReqs = new Handles.Request[WINDOW];
        Handles.Request[] recvReqs = new Handles.Request[WINDOW];
        long[] sizes = new long[1];
        Handles.MrHandle mr = null;
        try {
            mr = p.regMr(send, base, buf.capacity(), MemoryType.HOST);
            long posted = 0;
            long sentDone = 0;
            long recvPosted = 0;
            long recvDone = 0;
            while ((sentDone < count || recvDone < count) && failures.isEmpty()) {
                while (posted < count && posted - sentDone < WINDOW) {
                    int slot = (int) (posted % WINDOW);
                    int size = Payloads.size(sendSeed, posted);
                    Payloads.fill(buf, slot * SLOT, sendSeed, posted, size);
                    Handles.Request r = p.isend(send, base + (long) slot * SLOT, size, 3, mr);
                    if (r == null) {
                        break;
                    }
                    sendReqs[slot] = r;
                    posted++;
                }
                while (recvPosted < count && recvPosted - recvDone < WINDOW) {
                    int slot = (int) (recvPosted % WINDOW);
                    Handles.Request r = p.irecv(recv, 1, new long[] {base + (long) (WINDOW + slot) * SLOT},
                            new long[] {SLOT}, new int[] {3}, new Handles.MrHandle[] {mr});
                    if (r == null) {
                        break;
                    }
                    recvReqs[slot] = r;
                    recvPosted++;
                }
                if (sentDone < posted && p.test(sendReqs[(int) (sentDone % WINDOW)], null)) {
                    sentDone++;
                    progressed();
                }
                if (recvDone < recvPosted) {
                    int slot = (int) (recvDone % WINDOW);
                    sizes[0] = -1;
                    if (p.test(recvReqs[slot], sizes)) {
                        int expected = Payloads.size(recvSeed, recvDone);
                        if (sizes[0] != expected) {
                            failures.add(who + ": message " + recvDone + " reported " + sizes[0] + " bytes, sent "
                                    + expected);
                        }
                        int wrong = Payloads.verify(buf, (WINDOW + slot) * SLOT, recvSeed, recvDone, expected);
                        if (wrong >= 0) {
                            failures.add(who + ": message " + recvDone + " of " + expected + " bytes differs at byte "
                                    + wrong);
                        }
                        messages.incrementAndGet();
                        bytes.addAndGet(expected);
                        recvDone++;
                        progressed();
                    }
                }
                checkDeadline(who + " (sent " + sentDone + ", received " + recvDone + ")");
            }
        } catch (Throwable e) {
            failures.add(who + ": " + e);
            e.printStackTrace(System.out);
        } finally {
            if (mr != null) {
                try {
                    p.deregMr(send, mr);
                } catch (NetException e) {
                    failures.add(who + ": deregMr: " + e.getMessage());
                }
            }
        }
    }

    /**
     * While the workers run: regMr/deregMr for a communicator of the shared endpoint, and rounds of
     * connecting to the peer, accepting its connection on the shared listener, and closing both idle.
     */
    private void churn(Handles.ListenComm listen, byte[] handle, Handles.SendComm shared) {
        ByteBuffer scratch = ByteBuffer.allocateDirect(1 << 16);
        kept.add(scratch);
        long address = NativeMemory.addressOf(scratch);
        int registrations = 0;
        int connections = 0;
        try {
            while (!workersDone.get() && failures.isEmpty()) {
                for (int i = 0; i < 20; i++) {
                    Handles.MrHandle mr = p.regMr(shared, address + 64L * (i % 7), 4096 + 512L * i, MemoryType.HOST);
                    p.deregMr(shared, mr);
                    registrations++;
                }
                if (connections < 5) {
                    Handles.SendComm extraSend = null;
                    Handles.RecvComm extraRecv = null;
                    // The peer's side thread may stop first: then a half-made connection is given up.
                    while ((extraSend == null || extraRecv == null) && !workersDone.get()) {
                        if (extraSend == null) {
                            extraSend = p.connect(0, handle, ConnectConfig.DEFAULT);
                        }
                        if (extraRecv == null) {
                            extraRecv = p.accept(listen);
                        }
                        checkDeadline("an extra connection");
                    }
                    Thread.sleep(20);
                    if (extraRecv != null) {
                        p.closeRecv(extraRecv);
                    }
                    if (extraSend != null) {
                        p.closeSend(extraSend);
                    }
                    connections += extraSend != null && extraRecv != null ? 1 : 0;
                }
                Thread.sleep(5);
            }
        } catch (Throwable e) {
            failures.add(me + " churn thread: " + e);
            e.printStackTrace(System.out);
        }
        System.out.println(me + " churn: " + registrations + " registrations, " + connections + " extra connections");
    }
}
