package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Communicators that share an endpoint, driven from different threads (NCCL's threading contract):
 * two JVMs, four worker threads each, each driving its own send/receive pair on the one endpoint
 * of its process, while a side thread registers buffers and connects, accepts and closes further
 * communicators. Every message is verified (see {@link ThreadsPeer}). A peer fails when its process
 * makes no progress for a minute; each row's processes are killed at their bound, 600 s (about 45 s
 * on a quiet two-core machine); both scale with ofinet.test.timeFactor.
 */
class SharedEndpointThreadsIT {
    private static final int THREADS = 4;
    private static final int MESSAGES = Integer.getInteger("ofinet.test.threadMessages", 20_000);
    private static final int ROUNDS = Integer.getInteger("ofinet.test.threadRounds", 2);

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp;ofi_rxm"})
    void fourThreadsPerProcessOnSharedEndpoints(String provider, @TempDir Path dir) throws Exception {
        Path layout = dir.resolve("layout.json");
        String domain = provider.equals("shm") ? "shm" : "lo";
        Files.writeString(layout, "{\"devices\": [{\"name\": \"d\", \"dataRails\": [{\"provider\": \"" + provider
                + "\", \"domain\": \"" + domain + "\"}]}]}");
        ChildJvm.Spec a = spec("a", "b", dir, layout);
        ChildJvm.Spec b = spec("b", "a", dir, layout);
        try (ChildJvm pa = a.start(); ChildJvm pb = b.start()) {
            int sa = pa.waitFor();
            int sb = pb.waitFor();
            String outputs = "a:\n" + pa.output() + "\nb:\n" + pb.output();
            assertEquals(0, sa, outputs);
            assertEquals(0, sb, outputs);
            assertTrue(pa.output().contains("a: all checks passed"), outputs);
            assertTrue(pb.output().contains("b: all checks passed"), outputs);
            System.out.println(provider + ":\n" + outputs);
        }
    }

    private static ChildJvm.Spec spec(String me, String other, Path dir, Path layout) {
        return new ChildJvm.Spec(ThreadsPeer.class)
                .args(me, other, dir.toString(), Integer.toString(THREADS), Integer.toString(MESSAGES),
                        Integer.toString(ROUNDS))
                .env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet")
                .bound(Duration.ofSeconds(600)).directory(dir);
    }
}
