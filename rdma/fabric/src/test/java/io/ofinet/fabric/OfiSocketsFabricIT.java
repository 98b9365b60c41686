package io.ofinet.fabric;

import io.ofinet.fabric.ofi.OfiProvider;

/**
 * The fabric contract over real libfabric: sockets on loopback. Functional only: its progress
 * thread makes latency milliseconds on two cores.
 */
class OfiSocketsFabricIT extends FabricContract {
    private static final OfiProvider PROVIDER = new OfiProvider();

    @Override
    protected FabricProvider provider() {
        return PROVIDER;
    }

    @Override
    protected InfoHints hints() {
        return InfoHints.protocol().withProvider("sockets").withDomain("lo").withNode("127.0.0.1");
    }
}
