package io.ofinet.fabric;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import io.ofinet.fabric.testing.Progress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * One side of a two-process exchange over real libfabric, run in its own JVM:
 * {@code TwoProcessPeer a|b DIR PROVIDER DOMAIN NODE}. The target (b) publishes its address and a
 * registered window; the initiator (a) sends a message, writes with immediate data into the
 * window and reads back another part of it; b checks what arrived and reports by immediate data.
 * Exit status 0 means every check passed on this side.
 */
public final class TwoProcessPeer {
    static final Duration WAIT = Duration.ofSeconds(40);
    static final int WINDOW = 64 * 1024;
    static final long IMMEDIATE = 0xABCD1234L;

    private TwoProcessPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        InfoHints hints = InfoHints.protocol().withProvider(args[2]).withDomain(args[3]).withNode(args[4]);
        OfiProvider provider = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = provider.getinfo(hints)) {
            if (offers.infos().isEmpty()) {
                throw new IllegalStateException("no offer for " + hints);
            }
            fabric = provider.openFabric(offers.infos().get(0));
        }
        Domain domain = fabric.openDomain();
        Peer me = new Peer(domain);
        boolean ok = role.equals("b") ? target(exchange, me, domain) : initiator(exchange, me, domain);
        me.close();
        domain.close();
        fabric.close();
        System.out.println(role + (ok ? ": all checks passed" : ": CHECK FAILED"));
        System.exit(ok ? 0 : 1);
    }

    private static void post(Peer me, Progress.Condition posted) throws Exception {
        Progress.until(WAIT, posted, me);
    }

    private static Completion await(Peer me, long context) throws Exception {
        Completion[] c = new Completion[1];
        Progress.until(WAIT, () -> (c[0] = me.take(context)) != null, me);
        if (c[0].failed()) {
            throw new IllegalStateException("operation " + context + " failed: " + c[0]);
        }
        return c[0];
    }

    private static boolean target(AddressExchange exchange, Peer me, Domain domain) throws Exception {
        HostBuffer window = new HostBuffer(WINDOW);
        HostBuffer readable = new HostBuffer(4096).pattern(3);
        NativeMemory.copy(window.address + 32768, readable.address, 4096);
        HostBuffer inbox = new HostBuffer(4096);
        HostBuffer reply = new HostBuffer(8);
        long access = FabricContract.ALL_ACCESS;
        MemoryRegion windowMr = domain.register(window.address, WINDOW, access, 100, Fi.HMEM_SYSTEM);
        MemoryRegion inboxMr = domain.register(inbox.address, 4096, access, 101, Fi.HMEM_SYSTEM);
        MemoryRegion replyMr = domain.register(reply.address, 8, access, 102, Fi.HMEM_SYSTEM);
        post(me, () -> me.endpoint.recv(inbox.address, 4096, inboxMr.descriptor(), Fi.ADDR_UNSPEC, 1) == 0);
        exchange.publish("b.addr", me.endpoint.name());
        exchange.publish("b.window", windowMr.key() + " " + window.address);
        long toA = me.av.insert(exchange.await("a.addr", WAIT));

        Completion message = await(me, 1);
        boolean[] wrote = {false};
        Progress.until(WAIT, () -> {
            for (Completion c : me.takeAll()) {
                wrote[0] |= (c.flags() & Fi.REMOTE_CQ_DATA) != 0 && c.data() == IMMEDIATE;
            }
            return wrote[0];
        }, me);
        HostBuffer expect1 = new HostBuffer(1024).pattern(1);
        HostBuffer expect2 = new HostBuffer(8192).pattern(2);
        boolean ok = message.len() == 1024
                && Arrays.equals(expect1.bytes(0, 1024), inbox.bytes(0, 1024))
                && Arrays.equals(expect2.bytes(0, 8192), window.bytes(4096, 8192))
                && window.get(4095) == 0 && window.get(4096 + 8192) == 0;
        post(me, () -> me.endpoint.senddata(reply.address, 8, replyMr.descriptor(), ok ? 1 : 0, toA, 2) == 0);
        await(me, 2);
        // a reads from the window next; on manual-progress providers that needs this side polling.
        Progress.until(WAIT, () -> exchange.has("a.done"), me);
        windowMr.close();
        inboxMr.close();
        replyMr.close();
        return ok;
    }

    private static boolean initiator(AddressExchange exchange, Peer me, Domain domain) throws Exception {
        long toB = me.av.insert(exchange.await("b.addr", WAIT));
        String[] window = exchange.awaitString("b.window", WAIT).split(" ");
        long key = Long.parseLong(window[0]);
        long base = domain.info().virtualAddressing() ? Long.parseLong(window[1]) : 0;
        exchange.publish("a.addr", me.endpoint.name());
        HostBuffer message = new HostBuffer(1024).pattern(1);
        HostBuffer data = new HostBuffer(8192).pattern(2);
        HostBuffer replyBuf = new HostBuffer(8);
        HostBuffer readBack = new HostBuffer(4096);
        long access = FabricContract.ALL_ACCESS;
        MemoryRegion messageMr = domain.register(message.address, 1024, access, 200, Fi.HMEM_SYSTEM);
        MemoryRegion dataMr = domain.register(data.address, 8192, access, 201, Fi.HMEM_SYSTEM);
        MemoryRegion replyMr = domain.register(replyBuf.address, 8, access, 202, Fi.HMEM_SYSTEM);
        MemoryRegion readMr = domain.register(readBack.address, 4096, access, 203, Fi.HMEM_SYSTEM);
        post(me, () -> me.endpoint.recv(replyBuf.address, 8, replyMr.descriptor(), Fi.ADDR_UNSPEC, 10) == 0);
        post(me, () -> me.endpoint.send(message.address, 1024, messageMr.descriptor(), toB, 11) == 0);
        post(me, () -> me.endpoint.writedata(data.address, 8192, dataMr.descriptor(), IMMEDIATE, toB,
                base + 4096, key, 12) == 0);
        await(me, 11);
        await(me, 12);
        Completion reply = await(me, 10);
        boolean targetOk = (reply.flags() & Fi.REMOTE_CQ_DATA) != 0 && reply.data() == 1;
        post(me, () -> me.endpoint.read(readBack.address, 4096, readMr.descriptor(), toB, base + 32768, key, 13) == 0);
        await(me, 13);
        HostBuffer expect3 = new HostBuffer(4096).pattern(3);
        boolean readOk = Arrays.equals(expect3.bytes(0, 4096), readBack.bytes(0, 4096));
        exchange.publish("a.done", "1");
        messageMr.close();
        dataMr.close();
        replyMr.close();
        readMr.close();
        if (!targetOk) {
            System.out.println("a: the target reported a mismatch");
        }
        if (!readOk) {
            System.out.println("a: the read returned the wrong bytes");
        }
        return targetOk && readOk;
    }
}
