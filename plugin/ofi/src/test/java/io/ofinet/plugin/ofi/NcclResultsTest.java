package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ofinet.plugin.NetResult;
import org.junit.jupiter.api.Test;

class NcclResultsTest {

    @Test
    void failuresMapAsNcclsPluginReadmePrescribes() {
        assertEquals(2, NcclResults.code(NetResult.SYSTEM_ERROR), "ncclSystemError");
        assertEquals(3, NcclResults.code(NetResult.INTERNAL_ERROR), "ncclInternalError");
        assertEquals(5, NcclResults.code(NetResult.INVALID_USAGE), "ncclInvalidUsage");
        assertEquals(6, NcclResults.code(NetResult.REMOTE_ERROR), "ncclRemoteError: a dead peer");
        assertEquals(1, NcclResults.code(NetResult.UNHANDLED_CUDA_ERROR), "ncclUnhandledCudaError");
    }

    @Test
    void noFailureBecomesNcclInvalidArgument() {
        for (NetResult result : NetResult.values()) {
            if (result != NetResult.SUCCESS && result != NetResult.IN_PROGRESS) {
                int code = NcclResults.code(result);
                assertEquals(false, code == 4 || code == 0, result + " -> " + code);
            }
        }
        assertEquals(NcclResults.INTERNAL_ERROR, NcclResults.code(NetResult.INVALID_ARGUMENT),
                "arguments come from NCCL's core: a malformed one is its misuse");
    }

    @Test
    void successIsNotAFailure() {
        assertThrows(IllegalArgumentException.class, () -> NcclResults.code(NetResult.SUCCESS));
        assertThrows(IllegalArgumentException.class, () -> NcclResults.code(NetResult.IN_PROGRESS));
    }
}
