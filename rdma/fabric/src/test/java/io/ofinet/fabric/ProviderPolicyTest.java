package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Each provider's answers, as docs/FABRIC.md records the evidence for them. */
class ProviderPolicyTest {
    private static final ProviderPolicy TCP = new ProviderPolicy("tcp;ofi_rxm");
    private static final ProviderPolicy SHM = new ProviderPolicy("shm");
    private static final ProviderPolicy SOCKETS = new ProviderPolicy("sockets");
    private static final ProviderPolicy VERBS = new ProviderPolicy("verbs;ofi_rxm");
    private static final ProviderPolicy EFA = new ProviderPolicy("efa");
    private static final ProviderPolicy CXI = new ProviderPolicy("cxi");

    @Test
    void tcpOverRxm() {
        assertTrue(TCP.connectsOnDemand());
        assertFalse(TCP.reportsWriteSources());
        assertTrue(TCP.crashesClosingHalfBoundEndpoints());
        assertTrue(TCP.crashesOnCutImmediates());
        assertTrue(TCP.headsByDefault());
        assertTrue(TCP.taggedBoundedByRxmEagerLimit());
        assertEquals(32768, TCP.eagerMaxSizeByDefault(8192));
        assertEquals(Long.MAX_VALUE, TCP.immediateWritesUpTo());
        assertEquals(Long.MAX_VALUE, TCP.messagesCompleteAtOnceUpTo());
        assertFalse(TCP.waitsOnPeers());
        assertFalse(TCP.namesEndpointsInDevShm());
        assertTrue(TCP.removesLivePeers());
        assertEquals(0, TCP.addressVectorLimit());
        assertFalse(TCP.utilityOnly());
        assertTrue(TCP.isTcp());
        assertTrue(new ProviderPolicy("tcp").isTcp());
    }

    @Test
    void onlyTcpsCoreIsTcp() {
        for (ProviderPolicy p : new ProviderPolicy[] {SHM, SOCKETS, VERBS, EFA, CXI, new ProviderPolicy("tcpx"),
            new ProviderPolicy("udp;ofi_rxd")}) {
            assertFalse(p.isTcp(), p.provider());
        }
    }

    @Test
    void shm() {
        assertFalse(SHM.connectsOnDemand());
        assertTrue(SHM.reportsWriteSources());
        assertFalse(SHM.crashesOnCutImmediates());
        assertFalse(SHM.headsByDefault());
        assertEquals(4096, SHM.immediateWritesUpTo());
        assertEquals(4096, SHM.messagesCompleteAtOnceUpTo());
        assertEquals(8192, SHM.eagerMaxSizeByDefault(8192));
        assertTrue(SHM.waitsOnPeers());
        assertTrue(SHM.namesEndpointsInDevShm());
        assertFalse(SHM.removesLivePeers());
        assertEquals(256, SHM.addressVectorLimit());
    }

    @Test
    void providersWithNoKnownQuirkGetTheDefaults() {
        for (ProviderPolicy p : new ProviderPolicy[] {SOCKETS, EFA, CXI}) {
            assertFalse(p.connectsOnDemand(), p.provider());
            assertFalse(p.crashesOnCutImmediates(), p.provider());
            assertFalse(p.headsByDefault(), p.provider());
            assertFalse(p.waitsOnPeers(), p.provider());
            assertTrue(p.removesLivePeers(), p.provider());
            assertEquals(Long.MAX_VALUE, p.immediateWritesUpTo(), p.provider());
        }
        assertTrue(VERBS.connectsOnDemand(), "verbs;ofi_rxm connects on demand as tcp;ofi_rxm does");
        assertFalse(VERBS.crashesOnCutImmediates(), "the crash is the tcp core provider's");
        assertTrue(new ProviderPolicy("net;ofi_rxm").crashesOnCutImmediates(), "net, which discovery offers too,"
                + " crashed as tcp does (CutWriteSurvivor)");
    }

    @Test
    void utilityProvidersArePassedOver() {
        assertTrue(new ProviderPolicy("tcp;ofi_mrail").utilityOnly());
        assertTrue(new ProviderPolicy("ofi_hook_perf;shm").utilityOnly());
    }
}
