package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.RxmPostedBuffers;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The receive buffers rxm posts ({@link RxmPostedBuffers}, docs/FABRIC.md): a process that loads
 * libfabric through the binding has {@code FI_OFI_RXM_MSG_RX_SIZE} at 1024 unless its environment
 * set it, in which case the environment's value stands; and rxm itself reads that value when it
 * initialises (its own log, {@link RxmSettingsProbe}).
 */
@Timeout(120)
class RxmSettingsIT {

    @ParameterizedTest(name = "environment ''{0}'': rxm reads {1}")
    @CsvSource({"'', 1024", "4096, 4096", "64, 64"})
    void rxmPostsTheBindingsBuffersUnlessTheEnvironmentSaysOtherwise(String environment, String expected,
            @TempDir Path dir) throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(RxmSettingsProbe.class).directory(dir).bound(Duration.ofSeconds(60))
                .env("FI_LOG_LEVEL", "info").env("FI_LOG_PROV", "ofi_rxm")
                .envOrUnset(RxmPostedBuffers.VARIABLE, environment);
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String output = child.output();
            assertEquals(0, status, output);
            assertTrue(output.contains(RxmPostedBuffers.VARIABLE + "=" + expected + "\n"), output);
            assertTrue(output.contains("fi_getinfo: done"), output);
            assertTrue(output.contains("msg_rx_size=" + expected + "\n"), "rxm's own reading:\n" + output);
        }
    }
}
