package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A service may hold thousands of communicators: 1,000 open communicators to one peer (500
 * connections of a process to itself) cost at most {@link #HEAP_PER_COMM} bytes of heap each
 * (printed, with the native bytes).
 */
@Timeout(600)
class FootprintIT {
    static final long HEAP_PER_COMM = 32 * 1024;
    private static final Pattern FIGURES = Pattern.compile("heapBytesPerComm=(-?\\d+) nativeBytesPerComm=(-?\\d+)");

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void aThousandCommunicatorsToOnePeerCostLittleHeapEach(String provider, @TempDir Path dir) throws Exception {
        Path layout = LoopbackLayout.write(dir, provider);
        ChildJvm.Spec spec = new ChildJvm.Spec(FootprintPeer.class).args("500", "300").jvmArgs("-Xmx1g")
                .env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(400));
        try (ChildJvm peer = spec.start()) {
            int status = peer.waitFor();
            String out = peer.output();
            assertEquals(0, status, out);
            Matcher m = FIGURES.matcher(out);
            assertTrue(m.find(), out);
            long heap = Long.parseLong(m.group(1));
            System.out.println(provider + ": " + out.lines().filter(l -> l.startsWith("footprint:")).toList());
            assertTrue(heap <= HEAP_PER_COMM, provider + ": " + heap + " bytes of heap per communicator (at most "
                    + HEAP_PER_COMM + ")\n" + out);
        }
    }
}
