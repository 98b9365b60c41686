package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that loads the binding survives thousands of NullPointerExceptions, although Debian's
 * libfabric pulls in psm's libinfinipath, whose constructor takes over SIGSEGV unless told not
 * to. The children start without IPATH_NO_BACKTRACE / HFI_NO_BACKTRACE in their environment:
 * the binding must set them itself. They run in a temporary directory, where psm's handler leaves
 * its backtrace file when it kills one.
 */
class NpeSurvivalIT {

    @TempDir
    Path dir;

    private ChildJvm.Spec child(String mode) {
        return new ChildJvm.Spec(NpeSurvivor.class).args(mode).unsetEnv("IPATH_NO_BACKTRACE")
                .unsetEnv("HFI_NO_BACKTRACE").bound(Duration.ofSeconds(60)).directory(dir);
    }

    @Test
    void jvmLoadingTheBindingSurvivesImplicitNullChecks() throws Exception {
        try (ChildJvm jvm = child("ofinet").start()) {
            int status = jvm.waitFor();
            assertEquals(0, status, jvm.output());
            assertTrue(jvm.output().contains("survived 5000"), jvm.output());
        }
    }

    /** The control: without the binding's precaution the same JVM dies, where psm is present. */
    @Test
    void withoutThePrecautionTheJvmDiesWherePsmIsLoaded() throws Exception {
        try (ChildJvm jvm = child("raw").start()) {
            int status = jvm.waitFor();
            if (jvm.output().contains("libinfinipath mapped: true") || status != 0) {
                assertNotEquals(0, status, "libinfinipath was mapped yet the JVM survived:\n" + jvm.output());
            } else {
                assertTrue(jvm.output().contains("libinfinipath mapped: false"), jvm.output());
            }
        }
    }
}
