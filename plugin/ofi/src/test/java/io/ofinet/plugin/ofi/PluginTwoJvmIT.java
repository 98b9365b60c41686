package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The plugin API between two JVMs over real tcp;ofi_rxm, loaded through ServiceLoader. */
@Timeout(180)
class PluginTwoJvmIT {

    @Test
    void twoJvmsThroughTheNetPluginApi(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("layout.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"loopback\", \"dataRails\": ["
                + "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\"}, {\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\"}],"
                + " \"minStripeSize\": 65536}]}");
        ChildJvm.Spec recv = new ChildJvm.Spec(PluginPeer.class).args("recv", dir.toString())
                .env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(150));
        ChildJvm.Spec send = new ChildJvm.Spec(PluginPeer.class).args("send", dir.toString())
                .env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(150));
        ChildJvm.PairOutput out = ChildJvm.runPair(recv, send);
        assertTrue(out.receiver().contains("recv: all checks passed"), out.both());
        assertTrue(out.sender().contains("send: all checks passed"), out.both());
    }
}
