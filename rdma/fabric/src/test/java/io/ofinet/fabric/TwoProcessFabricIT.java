package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.NetNamespaces;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two JVMs exchange send/recv, writedata with immediate data and a read over real libfabric,
 * on loopback and across two network namespaces joined by a veth pair.
 */
@Timeout(180)
class TwoProcessFabricIT {

    private static void exchange(Path dir, String provider, String domainA, String nodeA, String nsA,
            String domainB, String nodeB, String nsB) throws Exception {
        ChildJvm.Spec b = new ChildJvm.Spec(TwoProcessPeer.class).args("b", dir.toString(), provider, domainB, nodeB)
                .bound(Duration.ofSeconds(90));
        ChildJvm.Spec a = new ChildJvm.Spec(TwoProcessPeer.class).args("a", dir.toString(), provider, domainA, nodeA)
                .bound(Duration.ofSeconds(90));
        if (nsA != null) {
            a.prefix(NetNamespaces.exec(nsA));
            b.prefix(NetNamespaces.exec(nsB));
        }
        try (ChildJvm target = b.start(); ChildJvm initiator = a.start()) {
            int aStatus = initiator.waitFor();
            int bStatus = target.waitFor();
            assertEquals(0, aStatus, "initiator:\n" + initiator.output() + "\ntarget:\n" + target.output());
            assertEquals(0, bStatus, "target:\n" + target.output());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "sockets"})
    void twoJvmsOnLoopback(String provider, @TempDir Path dir) throws Exception {
        exchange(dir, provider, "lo", "127.0.0.1", null, "lo", "127.0.0.1", null);
    }

    @Test
    void twoJvmsInSeparateNetworkNamespaces(@TempDir Path dir) throws Exception {
        assumeTrue(NetNamespaces.available(), "network namespaces need root and iproute2");
        String suffix = Long.toString(ProcessHandle.current().pid() % 100000);
        try (NetNamespaces ns = new NetNamespaces()) {
            String hostA = ns.create("ofa" + suffix);
            String hostB = ns.create("ofb" + suffix);
            ns.link(hostA, "ofv0", "10.231.1.1/24", hostB, "ofv1", "10.231.1.2/24");
            long before = ns.txBytes(hostA, "ofv0");
            exchange(dir, "tcp;ofi_rxm", "ofv0", "10.231.1.1", hostA, "ofv1", "10.231.1.2", hostB);
            long sent = ns.txBytes(hostA, "ofv0") - before;
            org.junit.jupiter.api.Assertions.assertTrue(sent > 8192,
                    "the traffic crossed the veth pair: " + sent + " bytes sent on ofv0");
        }
    }
}
