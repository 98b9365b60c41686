package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.RxmPostedBuffers;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the binding sets for rxm (docs/FABRIC.md): a process whose first {@code fi_getinfo} asks
 * for tcp under rxm has {@code FI_OFI_RXM_MSG_RX_SIZE} and {@code FI_OFI_RXM_BUFFER_SIZE} at 1024
 * unless its environment set them, in which case the environment's values stand; a process whose
 * first asks for another provider keeps rxm's own, and its later tcp keeps them too; rxm itself
 * reads what the process has when it initialises (its own log, {@link RxmSettingsProbe}). The
 * eager limit is set at load whatever comes first.
 */
@Timeout(120)
class RxmSettingsIT {

    @ParameterizedTest(name = "environment ''{0}'', first fi_getinfo for {1}: rxm reads {2}")
    @CsvSource({"'', tcp;ofi_rxm, 1024", "4096, tcp;ofi_rxm, 4096", "2048, tcp;ofi_rxm, 2048", "'', verbs;ofi_rxm, ''",
        "'', shm, ''"})
    void rxmGetsTheBindingsBuffersOverTcpUnlessTheEnvironmentSaysOtherwise(String environment, String first,
            String expected, @TempDir Path dir) throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(RxmSettingsProbe.class).directory(dir).bound(Duration.ofSeconds(60))
                .args(first).env("FI_LOG_LEVEL", "info").env("FI_LOG_PROV", "ofi_rxm")
                .envOrUnset(RxmPostedBuffers.VARIABLE, environment).envOrUnset(RxmBufferSize.VARIABLE, environment);
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String output = child.output();
            assertEquals(0, status, output);
            String before = environment.isEmpty() ? "null" : environment;
            assertTrue(output.contains(RxmPostedBuffers.VARIABLE + "=" + before + "\n"), "at load:\n" + output);
            assertTrue(output.contains(RxmBufferSize.VARIABLE + "=" + before + "\n"), "at load:\n" + output);
            assertTrue(output.contains(RxmEagerLimit.VARIABLE + "=" + RxmEagerLimit.DEFAULT + "\n"), output);
            assertTrue(output.contains("fi_getinfo tcp;ofi_rxm: done"), output);
            String after = expected.isEmpty() ? "null" : expected;
            assertTrue(output.contains("after: " + RxmPostedBuffers.VARIABLE + "=" + after + "\n"), output);
            assertTrue(output.contains("after: " + RxmBufferSize.VARIABLE + "=" + after + "\n"), output);
            if (expected.isEmpty()) {
                assertTrue(output.contains("variable msg_rx_size=<not set>"), "rxm's own reading:\n" + output);
                assertTrue(output.contains("variable buffer_size=<not set>"), "rxm's own reading:\n" + output);
                assertFalse(output.contains("after: " + RxmBufferSize.VARIABLE + "=" + RxmBufferSize.DEFAULT), output);
            } else {
                assertTrue(output.contains("msg_rx_size=" + expected + "\n"), "rxm's own reading:\n" + output);
                assertTrue(output.contains("buffer_size=" + expected + "\n"), "rxm's own reading:\n" + output);
            }
        }
    }
}
