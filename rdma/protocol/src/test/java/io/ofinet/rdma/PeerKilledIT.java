package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A peer killed with SIGKILL mid-transfer: the survivor's receive fails with a remote error in bounded time. */
@Timeout(120)
class PeerKilledIT {

    @Test
    void theSurvivorsRequestFailsWithARemoteErrorWithinTheBound(@TempDir Path dir) throws Exception {
        AddressExchange exchange = new AddressExchange(dir);
        try (ChildJvm survivor = new ChildJvm.Spec(KillPeer.class).args("survivor", dir.toString())
                        .bound(Duration.ofSeconds(90)).start();
                ChildJvm victim = new ChildJvm.Spec(KillPeer.class).args("victim", dir.toString())
                        .bound(Duration.ofSeconds(90)).start()) {
            exchange.await("victim.ready", Duration.ofSeconds(60));
            victim.kill();
            victim.waitFor();
            exchange.publish("victim.killed", "1");
            assertEquals(0, survivor.waitFor(), "survivor:\n" + survivor.output() + "\nvictim:\n" + victim.output());
            Matcher m = Pattern.compile("survivor: REMOTE after (\\d+) ms").matcher(survivor.output());
            assertTrue(m.find(), survivor.output());
            long ms = Long.parseLong(m.group(1));
            long bound = 3000 + TestTime.ms(5000);
            assertTrue(ms < bound, "failed " + ms + " ms after the kill; the bound is peerTimeoutMs (3 s) plus "
                    + (bound - 3000) + " ms");
        }
    }
}
