package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.NetNamespaces;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Without libfabric the binding says so, once and clearly, with the fix; callers can ask. The
 * library is hidden from a child JVM by a private mount namespace in which /dev/null is bound over
 * it (root, as on these machines and in CI).
 */
class MissingLibfabricIT {
    @Test
    void aMissingLibraryIsReportedWithTheFix() throws Exception {
        assumeTrue(NetNamespaces.canHide(NetNamespaces.LIBFABRIC), "needs root and Debian's libfabric");
        ChildJvm.Spec spec = new ChildJvm.Spec(AvailabilityReporter.class).bound(Duration.ofSeconds(60))
                .prefix(NetNamespaces.hiding(NetNamespaces.LIBFABRIC));
        try (ChildJvm jvm = spec.start()) {
            assertEquals(0, jvm.waitFor(), jvm.output());
            String out = jvm.output();
            assertTrue(out.contains("available: false"), out);
            assertTrue(out.contains("cause: libfabric is not available: cannot load libfabric.so.1"), out);
            assertTrue(out.contains("install it with apt-get install libfabric1"), out);
            assertTrue(out.contains("provider: libfabric is not available"), "the same clear error: " + out);
        }
    }
}
