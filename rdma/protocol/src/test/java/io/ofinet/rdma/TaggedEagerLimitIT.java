package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * On {@code tcp;ofi_rxm} a buffer takes one tagged message only up to rxm's eager limit, which the
 * binding sets (64 MiB) unless the environment does; a larger buffer is written. rxm logs the limit
 * it took at info level, so each row checks that rxm and ofinet agree on it.
 */
@Timeout(120)
class TaggedEagerLimitIT {

    @ParameterizedTest(name = "FI_OFI_RXM_EAGER_LIMIT ''{0}'': rxm takes {1}; {2}")
    @CsvSource({"'', 67108864, tagged 2 written 0", "1048576, 1048576, tagged 1 written 1"})
    void buffersUpToRxmsEagerLimitTakeTaggedMessagesAndLargerOnesAreWritten(String variable, long limit,
            String moved, @TempDir Path dir) throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(TaggedLimitPeer.class).directory(dir).bound(Duration.ofSeconds(90))
                .env("FI_LOG_LEVEL", "info").env("FI_LOG_PROV", "ofi_rxm")
                .envOrUnset(RxmEagerLimit.VARIABLE, variable);
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String output = child.output();
            assertEquals(0, status, output);
            assertTrue(output.contains("Eager: " + limit), "rxm did not take the limit " + limit + ":\n" + output);
            assertTrue(output.contains(moved), "expected '" + moved + "':\n" + output);
        }
    }
}
