package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A refused message is reported as itself, between two JVMs through the plugin API: the receive
 * fails, an eager send that completed stays completed, a rendezvous send fails at its own test, and
 * the pair goes on — no stale error at a later call, no live peer presumed dead (docs/PLUGIN.md).
 */
@Timeout(300)
class RefusalIT {

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void aRefusedMessageFailsItsReceiveAndThePairGoesOn(String provider, @TempDir Path dir) throws Exception {
        Path layout = LoopbackLayout.write(dir, provider);
        ChildJvm.Spec recv = spec("recv", dir, layout);
        ChildJvm.Spec send = spec("send", dir, layout);
        ChildJvm.PairOutput out = ChildJvm.runPair(recv, send);
        String both = out.both();
        assertTrue(out.receiver().contains("recv: all checks passed") && out.sender().contains("send: all checks passed"),
                both);
        assertTrue(!both.contains("presumed dead"), both);
        assertTrue(out.sender().contains("the receiver refused eager message"), "the sender logs each refusal\n"
                + both);
    }

    private static ChildJvm.Spec spec(String side, Path dir, Path layout) {
        return new ChildJvm.Spec(RefusalPeer.class).args(side, dir.toString()).env("OFINET_LAYOUT", layout.toString())
                .env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(240));
    }
}
