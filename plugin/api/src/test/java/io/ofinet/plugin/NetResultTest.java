package io.ofinet.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class NetResultTest {

    @Test
    void codesAreNcclsValues() {
        // ncclResult_t in nccl.h: success 0 ... inProgress 7.
        assertEquals(0, NetResult.SUCCESS.code());
        assertEquals(1, NetResult.UNHANDLED_CUDA_ERROR.code());
        assertEquals(2, NetResult.SYSTEM_ERROR.code());
        assertEquals(3, NetResult.INTERNAL_ERROR.code());
        assertEquals(4, NetResult.INVALID_ARGUMENT.code());
        assertEquals(5, NetResult.INVALID_USAGE.code());
        assertEquals(6, NetResult.REMOTE_ERROR.code());
        assertEquals(7, NetResult.IN_PROGRESS.code());
        for (NetResult r : NetResult.values()) {
            assertEquals(r, NetResult.ofCode(r.code()));
        }
        assertThrows(IllegalArgumentException.class, () -> NetResult.ofCode(8));
    }

    @Test
    void exceptionCarriesAnErrorResultOnly() {
        NetException e = new NetException(NetResult.REMOTE_ERROR, "peer went away");
        assertEquals(NetResult.REMOTE_ERROR, e.result());
        assertEquals("io.ofinet.plugin.NetException [REMOTE_ERROR]: peer went away", e.toString());
        assertThrows(IllegalArgumentException.class, () -> new NetException(NetResult.SUCCESS, "no"));
        assertThrows(IllegalArgumentException.class, () -> new NetException(NetResult.IN_PROGRESS, "no"));
    }
}
