package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A peer that goes away stalls nobody else: three JVMs, the hub exchanging verified messages with
 * two leaves over communicators on one endpoint; leaf1 is SIGKILLed by its pid, or exits without
 * closing; the hub's exchange with leaf2 must keep moving for 20 s afterwards with no gap over 3 s.
 * On shm messages stay within 4 KiB (libfabric 1.17's shm completes an endpoint's large remote-CQ-data
 * writes strictly in order, so a dead peer's large write holds up a healthy peer's: the bandwidth
 * issue's business).
 */
@Timeout(240)
class PeerGoneThreeJvmIT {

    @ParameterizedTest(name = "{0}, leaf1 {1}")
    @CsvSource({"tcp;ofi_rxm, killed, 1048576", "tcp;ofi_rxm, exits, 1048576", "shm, killed, 4096",
        "shm, exits, 4096"})
    void theOtherPeerKeepsMoving(String provider, String how, int maxBytes, @TempDir Path dir) throws Exception {
        Path layout = dir.resolve("layout.json");
        String domain = provider.equals("shm") ? "shm" : "lo";
        Files.writeString(layout, "{\"devices\": [{\"name\": \"d\", \"dataRails\": [{\"provider\": \"" + provider
                + "\", \"domain\": \"" + domain + "\"}]}]}");
        AddressExchange exchange = new AddressExchange(dir);
        try (ChildJvm hub = spec("hub", dir, layout, maxBytes).start();
                ChildJvm leaf1 = spec("leaf1", dir, layout, maxBytes).start();
                ChildJvm leaf2 = spec("leaf2", dir, layout, maxBytes).start()) {
            exchange.await("hub.streaming", Duration.ofSeconds(90));
            if (how.equals("killed")) {
                long pid = leaf1.pid();
                new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start().waitFor();
            } else {
                exchange.publish("leaf1.exit", "1");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (leaf1.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            exchange.publish("gone", Long.toString(System.currentTimeMillis()));
            int hubStatus = hub.waitFor();
            int leaf2Status = leaf2.waitFor();
            String outputs = "hub:\n" + hub.output() + "\nleaf1:\n" + leaf1.output() + "\nleaf2:\n" + leaf2.output();
            System.out.println(provider + ", leaf1 " + how + ":\n" + outputs);
            assertTrue(!leaf1.isAlive(), "leaf1 did not go:\n" + outputs);
            assertEquals(0, hubStatus, outputs);
            assertEquals(0, leaf2Status, outputs);
            assertTrue(hub.output().contains("hub: all checks passed"), outputs);
        }
    }

    private static ChildJvm.Spec spec(String me, Path dir, Path layout, int maxBytes) {
        return new ChildJvm.Spec(TrioPeer.class).args(me, dir.toString(), Integer.toString(maxBytes))
                .env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet")
                .bound(Duration.ofSeconds(200)).directory(dir);
    }
}
