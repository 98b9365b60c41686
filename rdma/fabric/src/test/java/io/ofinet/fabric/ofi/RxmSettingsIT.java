package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.RxmPostedBuffers;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the binding sets for rxm (docs/FABRIC.md): on a machine without RDMA devices, a process
 * that loads libfabric through the binding has {@code FI_OFI_RXM_MSG_RX_SIZE} and
 * {@code FI_OFI_RXM_BUFFER_SIZE} at 1024, each unless its environment set it, in which case the
 * environment's value stands, and no buffer size of the binding's without direct sends; and rxm
 * itself reads what the process has when it initialises (its own log, {@link RxmSettingsProbe}).
 * The other side, a machine with an RDMA device, is {@code RxmTcpDefaultsTest}'s.
 */
@Timeout(120)
class RxmSettingsIT {

    @ParameterizedTest(name = "posted ''{0}'', size ''{1}'', direct send ''{2}'': rxm reads {3} and {4}")
    @CsvSource({"'', '', '', 1024, 1024", "4096, 16384, '', 4096, 16384", "2048, '', '', 2048, 1024",
        "'', '', 0, 1024, ''"})
    void rxmGetsTheBindingsBuffersUnlessTheEnvironmentSaysOtherwise(String posted, String size, String directSend,
            String expectedPosted, String expectedSize, @TempDir Path dir) throws Exception {
        assumeTrue(RxmTcpDefaults.values(Map.of(), RxmTcpDefaults.RDMA_DEVICES).size() == 2,
                "this machine has an RDMA device: the binding leaves rxm's own");
        ChildJvm.Spec spec = new ChildJvm.Spec(RxmSettingsProbe.class).directory(dir).bound(Duration.ofSeconds(60))
                .env("FI_LOG_LEVEL", "info").env("FI_LOG_PROV", "ofi_rxm")
                .envOrUnset(RxmPostedBuffers.VARIABLE, posted).envOrUnset(RxmBufferSize.VARIABLE, size)
                .envOrUnset("FI_OFI_RXM_ENABLE_DIRECT_SEND", directSend);
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String output = child.output();
            assertEquals(0, status, output);
            assertTrue(output.contains("fi_getinfo: done"), output);
            assertTrue(output.contains(RxmEagerLimit.VARIABLE + "=" + RxmEagerLimit.DEFAULT + "\n"), output);
            assertTrue(output.contains(RxmPostedBuffers.VARIABLE + "=" + expectedPosted + "\n"), output);
            assertTrue(output.contains("msg_rx_size=" + expectedPosted + "\n"), "rxm's own reading:\n" + output);
            if (expectedSize.isEmpty()) {
                assertTrue(output.contains(RxmBufferSize.VARIABLE + "=null\n"), output);
                assertTrue(output.contains("variable buffer_size=<not set>"), "rxm's own reading:\n" + output);
            } else {
                assertTrue(output.contains(RxmBufferSize.VARIABLE + "=" + expectedSize + "\n"), output);
                assertTrue(output.contains("buffer_size=" + expectedSize + "\n"), "rxm's own reading:\n" + output);
            }
        }
    }
}
