package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RxmTcpDefaultsTest {
    @Test
    void onlyTcpUnderRxmGetsThem() {
        assertTrue(RxmTcpDefaults.tcpUnderRxm("tcp;ofi_rxm"));
        assertTrue(RxmTcpDefaults.tcpUnderRxm("TCP; ofi_rxm"));
        for (String other : new String[] {"verbs;ofi_rxm", "tcp", "ofi_rxm", "shm", "efa", "udp;ofi_rxd", "sockets",
                "tcp;ofi_rxm;extra", ""}) {
            assertFalse(RxmTcpDefaults.tcpUnderRxm(other), other);
        }
    }
}
