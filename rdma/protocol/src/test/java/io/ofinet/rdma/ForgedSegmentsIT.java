package io.ofinet.rdma;

import java.nio.file.Path;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A victim streaming with an honest peer while a third process, connected to it like any peer,
 * forges data segments for the honest peer's receives for 10 s ({@link ForgingPeer}, {@link
 * SegmentForger}), over real libfabric, per provider in its default layout (one data rail): the
 * honest stream verified byte for byte, never failed nor stalled, nothing charged to its
 * receives, every forgery naming it counted as forged (on tcp;ofi_rxm by the way its sender writes
 * or, for its notices, their source; on shm by their source).
 */
@Timeout(240)
class ForgedSegmentsIT {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tcp;ofi_rxm, lo", "shm, shm"})
    void forgedSegmentsChargeNothingToAnHonestPeersReceives(String provider, String domain, @TempDir Path dir)
            throws Exception {
        HostilePeerIT.runThree(ForgingPeer.class, "attacker", provider, domain, dir);
    }
}
