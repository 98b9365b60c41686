package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A victim serving an honest peer while a third process attacks it ({@link HostilePeer}), over real
 * libfabric, per provider: no JVM crash, the honest stream verified byte for byte and never stalled
 * over 3 s, the victim's canaries intact, every arrival of the hostile's dropped and counted.
 */
@Timeout(240)
class HostilePeerIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void aHostilePeerFailsNothingOfAnHonestOne(String provider, String domain, @TempDir Path dir) throws Exception {
        ChildJvm.Spec victim = spec(dir, "victim", provider, domain);
        ChildJvm.Spec honest = spec(dir, "honest", provider, domain);
        ChildJvm.Spec hostile = spec(dir, "hostile", provider, domain);
        try (ChildJvm v = victim.start(); ChildJvm h = honest.start(); ChildJvm x = hostile.start()) {
            int hostileStatus = x.waitFor();
            int victimStatus = v.waitFor();
            int honestStatus = h.waitFor();
            String all = "victim:\n" + v.output() + "\nhonest:\n" + h.output() + "\nhostile:\n" + x.output();
            assertEquals(0, victimStatus, all);
            assertEquals(0, honestStatus, all);
            assertEquals(0, hostileStatus, all);
            assertTrue(v.output().contains("victim: all checks passed"), all);
            assertTrue(h.output().contains("honest: all checks passed"), all);
            System.out.println(provider + ":\n" + all);
        }
    }

    private static ChildJvm.Spec spec(Path dir, String role, String provider, String domain) {
        return new ChildJvm.Spec(HostilePeer.class).args(role, dir.toString(), provider, domain)
                .bound(Duration.ofSeconds(180));
    }
}
