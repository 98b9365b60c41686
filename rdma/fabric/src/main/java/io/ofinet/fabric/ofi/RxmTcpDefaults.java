package io.ofinet.fabric.ofi;

import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.RxmPostedBuffers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The {@code ofi_rxm} settings ofinet chooses for {@code tcp}: how many buffers rxm posts for
 * arriving messages ({@link RxmPostedBuffers}) and the size of its buffers ({@link RxmBufferSize}).
 * rxm reads them once, when libfabric initialises its providers, and applies them over every core
 * provider. Over {@code verbs} they would cost: it posts its buffers per connection, and its eager
 * limit is the buffer size. So the binding sets them at load, each unless the environment has it,
 * only on a machine with no RDMA device ({@code /sys/class/infiniband} missing or empty), where
 * rxm cannot run over verbs. The buffer size is left to rxm too where direct sends or dynamic
 * receive buffers are turned off ({@link RxmEagerLimit#placesDirectly}): its eager limit is then
 * its buffer size over tcp as well.
 */
final class RxmTcpDefaults {
    /** Where Linux lists RDMA devices: verbs, EFA, soft RoCE. */
    static final Path RDMA_DEVICES = Path.of("/sys/class/infiniband");

    private RxmTcpDefaults() {
    }

    /**
     * The variables to set for a process with environment {@code env} on a machine whose RDMA
     * devices are listed in {@code rdmaDevices}, each with its value; none where one is listed.
     */
    static Map<String, String> values(Map<String, String> env, Path rdmaDevices) {
        Map<String, String> values = new LinkedHashMap<>();
        if (hasEntries(rdmaDevices)) {
            return values;
        }
        values.put(RxmPostedBuffers.VARIABLE, Integer.toString(RxmPostedBuffers.DEFAULT));
        if (RxmEagerLimit.placesDirectly(env)) {
            values.put(RxmBufferSize.VARIABLE, Integer.toString(RxmBufferSize.DEFAULT));
        }
        return values;
    }

    private static boolean hasEntries(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        } catch (IOException e) {
            return true; // unreadable: rxm's defaults, the safe side
        }
    }
}
