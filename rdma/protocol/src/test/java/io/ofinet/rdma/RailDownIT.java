package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.NetNamespaces;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two hosts (network namespaces) with two "NICs" each (veth pairs), one data rail per NIC. One
 * link goes down mid-transfer: both sides end with a remote error, neither hangs.
 */
@Timeout(150)
class RailDownIT {

    @Test
    void aDataRailGoingDownMidTransferGivesCleanErrorsOnBothSides(@TempDir Path dir) throws Exception {
        assumeTrue(NetNamespaces.available(), "network namespaces need root and iproute2");
        String suffix = Long.toString(ProcessHandle.current().pid() % 100000);
        AddressExchange exchange = new AddressExchange(dir);
        try (NetNamespaces ns = new NetNamespaces()) {
            String hostA = ns.create("oda" + suffix);
            String hostB = ns.create("odb" + suffix);
            ns.link(hostA, "oda0", "10.233.1.1/24", hostB, "odb0", "10.233.1.2/24");
            ns.link(hostA, "oda1", "10.233.2.1/24", hostB, "odb1", "10.233.2.2/24");
            ChildJvm.Spec recv = new ChildJvm.Spec(LinkDownPeer.class).args("recv", dir.toString(), "odb0", "odb1")
                    .prefix(NetNamespaces.exec(hostB)).bound(Duration.ofSeconds(120));
            ChildJvm.Spec send = new ChildJvm.Spec(LinkDownPeer.class).args("send", dir.toString(), "oda0", "oda1")
                    .prefix(NetNamespaces.exec(hostA)).bound(Duration.ofSeconds(120));
            try (ChildJvm r = recv.start(); ChildJvm s = send.start()) {
                exchange.await("warm", Duration.ofSeconds(60));
                ns.setLink(hostA, "oda1", false);
                ns.setLink(hostB, "odb1", false);
                int sStatus = s.waitFor();
                int rStatus = r.waitFor();
                assertEquals(0, sStatus, "sender:\n" + s.output() + "\nreceiver:\n" + r.output());
                assertEquals(0, rStatus, "receiver:\n" + r.output());
                assertTrue(s.output().contains("send: error REMOTE"), s.output());
                assertTrue(r.output().contains("recv: error REMOTE"), r.output());
            }
        }
    }
}
