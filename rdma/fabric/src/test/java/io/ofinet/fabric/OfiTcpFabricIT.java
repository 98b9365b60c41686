package io.ofinet.fabric;

import io.ofinet.fabric.ofi.OfiProvider;

/** The fabric contract over real libfabric: tcp;ofi_rxm on loopback. */
class OfiTcpFabricIT extends FabricContract {
    private static final OfiProvider PROVIDER = new OfiProvider();

    @Override
    protected FabricProvider provider() {
        return PROVIDER;
    }

    @Override
    protected InfoHints hints() {
        return InfoHints.protocol().withProvider("tcp;ofi_rxm").withDomain("lo").withNode("127.0.0.1");
    }
}
