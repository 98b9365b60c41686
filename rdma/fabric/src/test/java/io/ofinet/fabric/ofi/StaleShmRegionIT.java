package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A process that ends without closing its shm endpoints (killed, or leaving through {@code
 * _exit}) leaves their regions in /dev/shm under names that carry its pid. A later process given
 * the same pid finds a region of "its own" under the name of its next endpoint, and libfabric 1.17's
 * shm refuses to enable that endpoint (FI_EBUSY). Here the stale region is a copy of a live one of
 * this process, put under the name the next endpoint will take.
 */
@Timeout(60)
class StaleShmRegionIT {
    private static final Path SHM = Path.of("/dev/shm");

    @Test
    void anEndpointEnablesOverAStaleRegionOfItsOwnPid() throws Exception {
        assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "no writable /dev/shm");
        OfiProvider provider = new OfiProvider();
        Fabric fabric;
        try (InfoList offers = provider.getinfo(InfoHints.protocol().withProvider("shm"))) {
            fabric = provider.openFabric(offers.infos().get(0));
        }
        try (fabric; Domain domain = fabric.openDomain(); CompletionQueue cq = domain.openCompletionQueue(64);
                AddressVector av = domain.openAddressVector(16)) {
            Endpoint first = domain.openEndpoint(cq, av);
            first.enable();
            Endpoint second = domain.openEndpoint(cq, av);
            String firstName = ShmNames.regionName(first.name());
            String secondName = ShmNames.regionName(second.name());
            assertTrue(firstName.startsWith(ProcessHandle.current().pid() + ":"), firstName);
            assertTrue(!secondName.equals(firstName) && !Files.exists(SHM.resolve(secondName)), secondName);
            Files.copy(SHM.resolve(firstName), SHM.resolve(secondName), StandardCopyOption.REPLACE_EXISTING);
            try {
                second.enable();

                assertEquals(secondName, ShmNames.regionName(second.name()));
                assertTrue(Files.exists(SHM.resolve(secondName)), "the endpoint's own region in its place");
            } finally {
                second.close();
                first.close();
                Files.deleteIfExists(SHM.resolve(secondName));
            }
            assertTrue(!Files.exists(SHM.resolve(firstName)), "closing removes the names");
        }
    }
}
