package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.fabric.testing.TestTime;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A victim serving an honest peer while a third process attacks it ({@link HostilePeer}), over real
 * libfabric, per provider: no JVM crash, the honest stream verified byte for byte and never stalled
 * over 6 s (scaled), the victim's canaries intact, every arrival of the hostile's dropped and counted.
 */
@Timeout(240)
class HostilePeerIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aHostilePeerFailsNothingOfAnHonestOne(String provider, String domain, @TempDir Path dir) throws Exception {
        runThree(HostilePeer.class, "hostile", provider, domain, dir);
    }

    /**
     * Runs {@code main}'s roles victim, honest and {@code third} as child JVMs in {@code dir} until
     * they end (at most 180 s each), and asserts that each exited with status 0 and the first two
     * said that all their checks passed.
     */
    static void runThree(Class<?> main, String third, String provider, String domain, Path dir) throws Exception {
        try (ChildJvm v = spec(main, dir, "victim", provider, domain).start();
                ChildJvm h = spec(main, dir, "honest", provider, domain).start();
                ChildJvm x = spec(main, dir, third, provider, domain).start()) {
            int thirdStatus = x.waitFor();
            int victimStatus = v.waitFor();
            int honestStatus = h.waitFor();
            String all = "victim:\n" + v.output() + "\nhonest:\n" + h.output() + "\n" + third + ":\n" + x.output();
            assertEquals(0, victimStatus, all);
            assertEquals(0, honestStatus, all);
            assertEquals(0, thirdStatus, all);
            assertTrue(v.output().contains("victim: all checks passed"), all);
            assertTrue(h.output().contains("honest: all checks passed"), all);
            System.out.println(provider + ":\n" + all);
        }
    }

    private static ChildJvm.Spec spec(Class<?> main, Path dir, String role, String provider, String domain) {
        return new ChildJvm.Spec(main).args(role, dir.toString(), provider, domain)
                .jvmArgs("-D" + TestTime.PROPERTY + "=" + TestTime.FACTOR).bound(Duration.ofSeconds(180));
    }
}
