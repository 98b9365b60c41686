package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.NetNamespaces;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs move a size matrix (0 B to 8 MiB) over real tcp;ofi_rxm with two data rails, verified
 * byte for byte: on loopback, and across two network namespaces joined by two veth pairs (two
 * "NICs" per host), where both interfaces must carry the striped traffic.
 */
@Timeout(180)
class TwoJvmTransferIT {

    private static void run(Path dir, String[] prefixSend, String[] prefixRecv, String sendRail0, String sendRail1,
            String recvRail0, String recvRail1) throws Exception {
        ChildJvm.Spec recv = new ChildJvm.Spec(TransferPeer.class)
                .args("recv", dir.toString(), "tcp;ofi_rxm", recvRail0, recvRail1).bound(Duration.ofSeconds(120));
        ChildJvm.Spec send = new ChildJvm.Spec(TransferPeer.class)
                .args("send", dir.toString(), "tcp;ofi_rxm", sendRail0, sendRail1).bound(Duration.ofSeconds(120));
        if (prefixSend != null) {
            send.prefix(prefixSend);
            recv.prefix(prefixRecv);
        }
        ChildJvm.PairOutput out = ChildJvm.runPair(recv, send);
        assertTrue(out.receiver().contains("recv: all sizes verified"), out.both());
    }

    @Test
    void sizeMatrixOverTwoRailsOnLoopback(@TempDir Path dir) throws Exception {
        run(dir, null, null, "lo", "lo", "lo", "lo");
    }

    @Test
    void largeMessagesAreStripedOverTwoInterfaces(@TempDir Path dir) throws Exception {
        assumeTrue(NetNamespaces.available(), "network namespaces need root and iproute2");
        String suffix = Long.toString(ProcessHandle.current().pid() % 100000);
        try (NetNamespaces ns = new NetNamespaces()) {
            String hostA = ns.create("oxa" + suffix);
            String hostB = ns.create("oxb" + suffix);
            ns.link(hostA, "oxa0", "10.232.1.1/24", hostB, "oxb0", "10.232.1.2/24");
            ns.link(hostA, "oxa1", "10.232.2.1/24", hostB, "oxb1", "10.232.2.2/24");
            long before0 = ns.txBytes(hostA, "oxa0");
            long before1 = ns.txBytes(hostA, "oxa1");
            run(dir, NetNamespaces.exec(hostA), NetNamespaces.exec(hostB), "oxa0", "oxa1", "oxb0", "oxb1");
            long sent0 = ns.txBytes(hostA, "oxa0") - before0;
            long sent1 = ns.txBytes(hostA, "oxa1") - before1;
            // 8 MiB + 1 MiB + smaller messages, two stripes each from 8 KiB up: each rail carries
            // several MiB of payload.
            assertTrue(sent0 > 4_000_000, "rail 0 (oxa0) carried " + sent0 + " bytes");
            assertTrue(sent1 > 4_000_000, "rail 1 (oxa1) carried " + sent1 + " bytes");
        }
    }
}
