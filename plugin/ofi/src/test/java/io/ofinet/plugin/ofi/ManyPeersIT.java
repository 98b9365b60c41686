package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One process on shm connected to eight peer processes, each connection closed and opened again 100
 * times: shm's address vector (256 entries in libfabric 1.17, every insert counted) holds each peer
 * once, and what the hub holds stays flat from round 10 to 100.
 */
@Timeout(480)
class ManyPeersIT {
    static final int LEAVES = 8;
    static final int ROUNDS = 100;

    @Test
    void eightShmPeersOpenedAndClosedAHundredTimes(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("layout.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"shm\", \"dataRails\": [{\"provider\": \"shm\","
                + " \"domain\": \"shm\"}]}]}");
        List<ChildJvm> leaves = new ArrayList<>();
        try (ChildJvm hub = spec(dir, layout, "hub", LEAVES).start()) {
            try {
                for (int i = 0; i < LEAVES; i++) {
                    leaves.add(spec(dir, layout, "leaf", i).start());
                }
                int status = hub.waitFor();
                StringBuilder all = new StringBuilder("hub:\n" + hub.output());
                for (ChildJvm leaf : leaves) {
                    int leafStatus = leaf.waitFor();
                    all.append("\nleaf:\n").append(leaf.output());
                    assertEquals(0, leafStatus, all.toString());
                }
                assertEquals(0, status, all.toString());
                Map<Integer, Map<String, Long>> at = ChurnIT.figures(hub.output().replace("hub: at", "recv: at"));
                Map<String, Long> first = at.get(ManyPeersPeer.FIRST_MEASURED);
                Map<String, Long> last = at.get(ROUNDS);
                assertTrue(first != null && last != null, all.toString());
                System.out.println("shm hub with " + LEAVES + " peers: at round 10: " + first + "; at round 100: " + last);
                for (Map.Entry<String, Long> bound : ChurnIT.BOUNDS.entrySet()) {
                    long grew = last.get(bound.getKey()) - first.get(bound.getKey());
                    assertTrue(grew <= bound.getValue(), bound.getKey() + " grew by " + grew + " from round 10 to 100"
                            + " (bound " + bound.getValue() + ")\n" + all);
                }
            } finally {
                for (ChildJvm leaf : leaves) {
                    leaf.close();
                }
            }
        }
    }

    private static ChildJvm.Spec spec(Path dir, Path layout, String role, int n) {
        return new ChildJvm.Spec(ManyPeersPeer.class).args(role, dir.toString(), Integer.toString(n),
                Integer.toString(ROUNDS)).jvmArgs("-Xmx96m").env("OFINET_LAYOUT", layout.toString())
                .env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(450));
    }
}
