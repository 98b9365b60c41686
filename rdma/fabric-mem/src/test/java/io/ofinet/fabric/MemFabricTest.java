package io.ofinet.fabric;

import io.ofinet.fabric.mem.MemProvider;

/** The fabric contract on the in-memory provider, domain-scoped registrations. */
class MemFabricTest extends FabricContract {
    private final MemProvider provider = MemProvider.create();

    @Override
    protected FabricProvider provider() {
        return provider;
    }

    @Override
    protected InfoHints hints() {
        return InfoHints.protocol().withProvider(MemProvider.NAME);
    }
}
