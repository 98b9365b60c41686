package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What libfabric 1.17's {@code tcp;ofi_rxm} does when an RDMA write is cut short half way
 * ({@link CutWriteSurvivor}), the reason ofinet announces writes on tcp by a notice message
 * (docs/PROTOCOL.md, "Write notices"): closing the target of a write with immediate data kills the
 * process with SIGSEGV inside libfabric; a plain write cut the same ways harms nothing. The first
 * row keeps the reproducer honest: should a libfabric fix it, the row says so.
 *
 * <p>The last rows cut a 256 MiB message with immediate data instead, sent whole (rxm's eager limit
 * raised to its size, 268435456 bytes, so that tcp places it straight into the receive's buffer):
 * the other way a large transfer could carry its data on tcp
 * (docs/measurements/2026-11-25-tcp-a-whole-message-instead-of-a-write-measured-in-c.md).
 * It harms nothing either, and a receive cut at the sender fails with
 * an error of its own.
 */
@Timeout(120)
class CutWriteIT {

    @ParameterizedTest(name = "{0} cut at its {1}: survives {2}")
    @CsvSource({"writedata, target, false, ''", "write, target, true, ''", "write, writer, true, ''",
        "senddata, target, true, 268435456", "senddata, writer, true, 268435456"})
    void aCutWriteCrashesRxmOnlyWhenItCarriesImmediateData(String kind, String cut, boolean survives,
            String eagerLimit, @TempDir Path dir) throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(CutWriteSurvivor.class).args(kind, cut).directory(dir)
                .bound(Duration.ofSeconds(90));
        if (!eagerLimit.isEmpty()) {
            // rxm logs its protocol limits at info level: the check that the message goes whole.
            spec.env("FI_OFI_RXM_EAGER_LIMIT", eagerLimit).env("FI_LOG_LEVEL", "info").env("FI_LOG_PROV", "ofi_rxm");
        }
        try (ChildJvm child = spec.start()) {
            int status = child.waitFor();
            String output = child.output();
            System.out.println(kind + " cut at its " + cut + ": exit " + status);
            assertTrue(output.contains("no completion: cutting it"), "the write was not cut:\n" + output);
            if (!eagerLimit.isEmpty()) {
                assertTrue(output.contains("Eager: " + eagerLimit), "rxm did not take the eager limit:\n" + output);
            }
            if (survives) {
                assertEquals(0, status, output);
                assertTrue(output.contains("survived"), output);
                try (Stream<Path> files = Files.list(dir)) {
                    assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("hs_err")), "crash file");
                }
                if (kind.equals("senddata") && cut.equals("writer")) {
                    assertTrue(output.contains("the target's receive: failed"), output);
                }
            } else {
                assertNotEquals(0, status, "a cut write with immediate data no longer crashes this libfabric;"
                        + " check whether writeNotice=message is still needed on tcp:\n" + output);
                assertTrue(output.contains("SIGSEGV") && output.contains("libfabric"), output);
            }
        }
    }
}
