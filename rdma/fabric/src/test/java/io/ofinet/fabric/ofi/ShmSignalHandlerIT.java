package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libfabric 1.17's shm takes over SIGSEGV at its first endpoint and unlinks the process's shm
 * regions whenever one arrives; in a JVM one arrives at every implicit null check. The binding
 * keeps the JVM's handler, so an endpoint's region outlives NullPointerExceptions (and endpoints
 * opened later can still reach it). The control shows the hazard without the guard.
 */
class ShmSignalHandlerIT {

    @TempDir
    Path dir;

    private String run(String mode) throws Exception {
        try (ChildJvm jvm = new ChildJvm.Spec(ShmRegionSurvivor.class).args(mode).bound(Duration.ofSeconds(60))
                .directory(dir).start()) {
            int status = jvm.waitFor();
            assertEquals(0, status, jvm.output());
            assertTrue(jvm.output().contains("survived 5000"), jvm.output());
            return jvm.output();
        }
    }

    @Test
    void theBindingKeepsTheJvmsHandlerAndTheRegionSurvivesNullChecks() throws Exception {
        String output = run("guarded");
        assertTrue(output.contains("region present: true"), output);
        assertTrue(output.contains("SIGSEGV handler kept: true"), output);
        assertTrue(output.contains("region present after the null checks: true"), output);
    }

    @Test
    void withoutTheGuardShmTakesSigsegvAndTheFirstNullCheckUnlinksTheRegion() throws Exception {
        String output = run("unguarded");
        assertTrue(output.contains("region present: true"), output);
        assertTrue(output.contains("SIGSEGV handler kept: false"), output);
        assertTrue(output.contains("region present after the null checks: false"), output);
    }
}
