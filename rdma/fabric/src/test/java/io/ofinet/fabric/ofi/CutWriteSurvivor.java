package io.ofinet.fabric.ofi;

import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;

/**
 * Two {@code tcp;ofi_rxm} endpoints in one process: a 256 MiB RDMA write from one into the other
 * is cut short half way, by closing its target or its writer. Args: {@code KIND CUT} — {@code
 * writedata} (with immediate data), {@code write} (plain) or {@code senddata} (a message with
 * immediate data into a receive posted for it, which rxm sends whole and tcp places straight into
 * the receive's buffer when {@code FI_OFI_RXM_EAGER_LIMIT} is at least its size); {@code target}
 * or {@code writer}. Prints what it did, what the surviving side saw, and "survived"; libfabric
 * 1.17 kills the process with SIGSEGV inside {@code ofi_rxm} when a write with immediate data is
 * cut.
 */
public final class CutWriteSurvivor {
    private static final long BYTES = 256L << 20;
    private static final long RECEIVE = 2;
    private static final long ACCESS = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;

    private CutWriteSurvivor() {
    }

    public static void main(String[] args) throws Exception {
        boolean immediate = args[0].equals("writedata");
        boolean message = args[0].equals("senddata");
        boolean cutTarget = args[1].equals("target");
        OfiProvider provider = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = provider.getinfo(InfoHints.protocol().withProvider("tcp;ofi_rxm").withDomain("lo"))) {
            fabric = provider.openFabric(offers.infos().get(0));
        }
        Domain domain = fabric.openDomain();
        Peer a = new Peer(domain);
        Peer b = new Peer(domain);
        long aToB = a.av.insert(b.endpoint.name());
        b.av.insert(a.endpoint.name());
        try (HostBuffer src = new HostBuffer(BYTES).pattern(5); HostBuffer dst = new HostBuffer(BYTES)) {
            MemoryRegion srcMr = domain.register(src.address, src.size, ACCESS, 1, Fi.HMEM_SYSTEM);
            MemoryRegion dstMr = domain.register(dst.address, dst.size, ACCESS, 2, Fi.HMEM_SYSTEM);
            long remote = fabric.info().virtualAddressing() ? dst.address : 0;
            if (message && b.endpoint.recv(dst.address, BYTES, dstMr.descriptor(), Fi.ADDR_UNSPEC, RECEIVE)
                    != Endpoint.POSTED) {
                throw new IllegalStateException("the receive was refused");
            }
            int rc;
            // rxm refuses posts to a new peer until its connection is up, which needs both sides polled.
            do {
                if (message) {
                    rc = a.endpoint.senddata(src.address, BYTES, srcMr.descriptor(), 7, aToB, 1);
                } else if (immediate) {
                    rc = a.endpoint.writedata(src.address, BYTES, srcMr.descriptor(), 7, aToB, remote, dstMr.key(),
                            1);
                } else {
                    rc = a.endpoint.write(src.address, BYTES, srcMr.descriptor(), aToB, remote, dstMr.key(), 1);
                }
                a.progress();
                b.progress();
            } while (rc == Endpoint.AGAIN);
            for (int step = 0; step < 20; step++) {
                a.progress();
                b.progress();
            }
            System.out.println(args[0] + " posted; the target has seen "
                    + (b.take(message ? RECEIVE : 0) == null ? "no completion: cutting it" : "its completion already"));
            if (cutTarget) {
                b.close();
                a.close();
            } else {
                a.close();
                // The target learns of the cut when its provider sees the connection close: a
                // loaded machine may take a while, so it polls for up to ten seconds.
                Peer.Completion receive = null;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (receive == null && System.nanoTime() < deadline) {
                    b.progress();
                    receive = b.take(RECEIVE);
                }
                System.out.println("the target's receive: " + (receive == null ? "no completion"
                        : receive.failed() ? "failed, errno " + receive.errno()
                        : "completed, " + receive.len() + " bytes"));
                b.close();
            }
            srcMr.close();
            dstMr.close();
        }
        domain.close();
        fabric.close();
        System.out.println("survived");
    }
}
