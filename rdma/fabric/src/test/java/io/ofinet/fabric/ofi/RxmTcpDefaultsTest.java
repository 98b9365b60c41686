package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmPostedBuffers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RxmTcpDefaultsTest {
    private static final Map<String, String> BOTH = Map.of(RxmPostedBuffers.VARIABLE, "1024",
            RxmBufferSize.VARIABLE, "1024");

    @Test
    void aMachineWithoutRdmaDevicesGetsBoth(@TempDir Path dir) throws Exception {
        assertEquals(BOTH, RxmTcpDefaults.values(Map.of(), dir.resolve("infiniband")), "no directory");
        Path empty = Files.createDirectory(dir.resolve("empty"));
        assertEquals(BOTH, RxmTcpDefaults.values(Map.of(), empty), "an empty directory");
    }

    @Test
    void aMachineWithAnRdmaDeviceKeepsRxmsOwn(@TempDir Path dir) throws Exception {
        Files.createDirectory(dir.resolve("mlx5_0"));
        assertEquals(Map.of(), RxmTcpDefaults.values(Map.of(), dir));
    }

    @Test
    void withoutDirectPlacementTheBufferSizeIsRxmsEagerLimitAndStaysRxms(@TempDir Path dir) {
        Map<String, String> posted = Map.of(RxmPostedBuffers.VARIABLE, "1024");
        assertEquals(posted, RxmTcpDefaults.values(Map.of("FI_OFI_RXM_ENABLE_DIRECT_SEND", "no"), dir));
        assertEquals(posted, RxmTcpDefaults.values(Map.of("FI_OFI_RXM_ENABLE_DYN_RBUF", "0"), dir));
    }
}
