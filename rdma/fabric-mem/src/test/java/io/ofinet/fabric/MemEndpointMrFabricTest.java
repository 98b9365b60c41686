package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.mem.MemProvider;
import org.junit.jupiter.api.Test;

/** The fabric contract on the in-memory provider with FI_MR_ENDPOINT required. */
class MemEndpointMrFabricTest extends FabricContract {
    private final MemProvider provider = MemProvider.builder().endpointMr().outOfOrderCompletions(17).build();

    @Override
    protected FabricProvider provider() {
        return provider;
    }

    @Override
    protected InfoHints hints() {
        return InfoHints.protocol().withProvider(MemProvider.NAME);
    }

    @Test
    void offerRequiresEndpointRegistrations() {
        assertTrue(info().requiresEndpointMr());
    }
}
