package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Two JVMs connect over real tcp;ofi_rxm on loopback with two data and two control rails. */
@Timeout(120)
class TwoJvmConnectIT {

    @Test
    void twoJvmsConnectOverTwoRailsAndCloseCleanly(@TempDir Path dir) throws Exception {
        ChildJvm.Spec listener = new ChildJvm.Spec(ConnectPeer.class)
                .args("listen", dir.toString(), "tcp;ofi_rxm", "lo").bound(Duration.ofSeconds(90));
        ChildJvm.Spec connector = new ChildJvm.Spec(ConnectPeer.class)
                .args("connect", dir.toString(), "tcp;ofi_rxm", "lo").bound(Duration.ofSeconds(90));
        try (ChildJvm l = listener.start(); ChildJvm c = connector.start()) {
            int cStatus = c.waitFor();
            int lStatus = l.waitFor();
            assertEquals(0, cStatus, "connector:\n" + c.output() + "\nlistener:\n" + l.output());
            assertEquals(0, lStatus, "listener:\n" + l.output());
            assertTrue(l.output().contains("listen: connected and closed"), l.output());
            assertTrue(c.output().contains("connect: connected and closed"), c.output());
        }
    }
}
