package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.Parameters;
import io.ofinet.fabric.ProviderPolicy;
import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.rdma.wire.EagerMessageHeader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Communicators come and go: two JVMs of 96 MB heap each repeat 2,000 communicator lifetimes through
 * the plugin API over real libfabric, and what each process holds at lifetime 200 and at 2,000 —
 * heap after a full collection, native bytes, address vector entries, registrations, libfabric
 * objects, file descriptors, /dev/shm names — stays within a small bound (printed; {@link #bounds}).
 */
@Timeout(600)
class ChurnIT {
    static final int LIFETIMES = 2000;
    /** What may differ between lifetime 200 and 2,000; heap in bytes, the rest in units. */
    static final Map<String, Long> BOUNDS = Map.of("heapBytes", 8L << 20, "nativeBytes", 1L << 20,
            "addressEntries", 2L, "registrations", 4L, "openObjects", 4L, "fds", 4L, "shmNames", 2L);
    /**
     * {@link #BOUNDS}, with native bytes raised by one growth of an endpoint's eager freelist (a
     * block of {@code rdmaMinPostedEagerBuffers} buffers of the provider's eager size and header):
     * the freelist grows to a high-water mark when messages wait for their receives, which under
     * load a side may reach only after lifetime 200; a leak grows with the lifetimes instead.
     */
    static Map<String, Long> bounds(String provider) {
        long buffer = provider.equals("shm") ? ProviderPolicy.SHM_INJECT_BYTES
                : ProviderPolicy.TCP_EAGER_MAX_SIZE + EagerMessageHeader.BYTES;
        Map<String, Long> bounds = new HashMap<>(BOUNDS);
        bounds.merge("nativeBytes", Parameters.RDMA_MIN_POSTED_EAGER_BUFFERS.defaultValue() * buffer, Long::sum);
        return bounds;
    }

    private static final Pattern FIGURES = Pattern.compile("(?m)^(send|recv): at (\\d+): (.*)$");

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void twoThousandLifetimesHoldNothingMore(String provider, @TempDir Path dir) throws Exception {
        Path layout = LoopbackLayout.write(dir, provider);
        ChildJvm.Spec recv = spec("recv", dir, layout);
        ChildJvm.Spec send = spec("send", dir, layout);
        ChildJvm.PairOutput out = ChildJvm.runPair(recv, send);
        String both = out.both();
        for (String side : new String[] {out.receiver(), out.sender()}) {
            Map<Integer, Map<String, Long>> at = figures(side);
            Map<String, Long> first = at.get(ChurnPeer.FIRST_MEASURED);
            Map<String, Long> last = at.get(LIFETIMES);
            assertTrue(first != null && last != null, both);
            System.out.println(provider + ": at " + ChurnPeer.FIRST_MEASURED + ": " + first);
            System.out.println(provider + ": at " + LIFETIMES + ": " + last);
            for (Map.Entry<String, Long> bound : bounds(provider).entrySet()) {
                long grew = last.get(bound.getKey()) - first.get(bound.getKey());
                assertTrue(grew <= bound.getValue(), provider + ": " + bound.getKey() + " grew by " + grew
                        + " between lifetime 200 and 2,000 (bound " + bound.getValue() + ")\n" + both);
            }
            assertEquals(0L, last.get("droppedUnknownComm"), "no arrival dropped as for an unknown communicator\n"
                    + both);
        }
    }

    private static ChildJvm.Spec spec(String side, Path dir, Path layout) {
        return new ChildJvm.Spec(ChurnPeer.class).args(side, dir.toString(), Integer.toString(LIFETIMES), "500")
                .jvmArgs("-Xmx96m").env("OFINET_LAYOUT", layout.toString()).env("OFINET_PLUGIN", "ofinet")
                .bound(Duration.ofSeconds(560));
    }

    static Map<Integer, Map<String, Long>> figures(String output) {
        Map<Integer, Map<String, Long>> at = new HashMap<>();
        Matcher m = FIGURES.matcher(output);
        while (m.find()) {
            Map<String, Long> values = new HashMap<>();
            for (String pair : m.group(3).trim().split("\\s+")) {
                String[] kv = pair.split("=");
                values.put(kv[0], Long.parseLong(kv[1]));
            }
            at.put(Integer.parseInt(m.group(2)), values);
        }
        return at;
    }
}
