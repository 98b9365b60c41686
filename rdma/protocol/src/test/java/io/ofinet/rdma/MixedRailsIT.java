package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.ConfigLoader;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A device whose data rails' providers address remote memory differently (tcp by offset, shm by
 * virtual address) is refused when it opens, naming both rails: a receive announces one address
 * per buffer for every data rail, and such a device's striped transfers stalled. The refusal
 * leaves nothing open: the same layout without its second rail opens after it.
 */
@Timeout(60)
class MixedRailsIT {
    private static DeviceSpec layout(String rails) throws Exception {
        return ConfigLoader.parse("{\"devices\": [{\"name\": \"mixed\", \"dataRails\": [" + rails + "]}]}",
                "test layout", ConfigEnvironment.of(Map.of(), new Properties())).devices().get(0);
    }

    @Test
    void railsThatAddressRemoteMemoryDifferentlyAreRefusedWhenTheDeviceOpens() throws Exception {
        String tcp = "{\"provider\": \"tcp;ofi_rxm\", \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}";
        String shm = "{\"provider\": \"shm\", \"domain\": \"shm\"}";
        OfiProvider provider = new OfiProvider();
        int before = io.ofinet.fabric.ofi.NativeUsage.openObjects();
        RdmaException e = assertThrows(RdmaException.class, () -> Device.open(provider, layout(tcp + ", " + shm)));
        assertEquals(ErrorCategory.INVALID_ARGUMENT, e.category());
        assertTrue(e.getMessage().startsWith("device mixed: data rails 0 (tcp;ofi_rxm, by offset) and 1 (shm, by"
                + " virtual address, FI_MR_VIRT_ADDR) address remote memory differently"), e.getMessage());
        // At most as many: the watchdog may close an endpoint an earlier test's thread left, meanwhile.
        int after = io.ofinet.fabric.ofi.NativeUsage.openObjects();
        assertTrue(after <= before, "the refused device closed what it opened: " + before + " open objects before, "
                + after + " after");
        try (Device device = Device.open(provider, layout(tcp))) {
            assertEquals(1, device.spec().dataRails().size());
        }
    }
}
