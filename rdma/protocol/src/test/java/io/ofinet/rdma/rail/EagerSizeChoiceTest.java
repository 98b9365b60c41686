package io.ofinet.rdma.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ofinet.config.Parameters;
import io.ofinet.config.Setting;
import io.ofinet.config.Source;
import io.ofinet.fabric.FabricInfo;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the largest eager payload is chosen from {@code eagerMaxSize} and the data rails' providers. */
class EagerSizeChoiceTest {
    private static final Setting<Long> UNSET = new Setting<>(Parameters.EAGER_MAX_SIZE, 8192L, Source.DEFAULT, "default");

    private static FabricInfo offer(String provider) {
        return new FabricInfo(provider, "f", "d", 0, 0, 0, 8, 8, 1 << 30, 64, 128, 128, 0, 0, 0, 0, 0, 0x10011,
                Optional.empty(), null);
    }

    private static long chosen(Setting<Long> setting, int dataRails, String... providers) {
        return chosen(setting, 131072, 64L << 20, dataRails, providers);
    }

    private static long chosen(Setting<Long> setting, long minStripeSize, long rxmLimit, int dataRails,
            String... providers) {
        List<FabricInfo> infos = java.util.Arrays.stream(providers).map(EagerSizeChoiceTest::offer).toList();
        return new ProviderChoices(dataRails, infos).eagerMaxSize(setting, minStripeSize, rxmLimit);
    }

    @Test
    void unsetItIs32KiBOnTcpAndTheParametersDefaultElsewhere() {
        assertEquals(32768, chosen(UNSET, 1, "tcp;ofi_rxm"));
        assertEquals(8192, chosen(UNSET, 1, "shm"));
        assertEquals(8192, chosen(UNSET, 1, "verbs;ofi_rxm"));
    }

    @Test
    void railsOfDifferentProvidersTakeTheSmallestDefaultOfTheDataRails() {
        assertEquals(8192, chosen(UNSET, 2, "tcp;ofi_rxm", "shm"));
        // A control rail beyond the data rails has no say.
        assertEquals(32768, chosen(UNSET, 1, "tcp;ofi_rxm", "shm"));
    }

    @Test
    void tcpsDefaultStaysWithinTheStripesAndRxmsEagerLimitElseItIsTheParametersDefault() {
        assertEquals(32768, chosen(UNSET, 32768, 32768 + 16, 1, "tcp;ofi_rxm"));
        assertEquals(8192, chosen(UNSET, 16384, 64L << 20, 1, "tcp;ofi_rxm"));
        assertEquals(8192, chosen(UNSET, 131072, 32768 + 15, 1, "tcp;ofi_rxm"));
        assertEquals(8192, chosen(UNSET, 131072, 16384, 1, "tcp;ofi_rxm"));
        // rxm's limit bounds only a raise: the parameter's default is what it was.
        assertEquals(8192, chosen(UNSET, 4096, 4096, 1, "shm"));
    }

    @Test
    void aValueSetAnywhereIsTakenAsSet() {
        for (Source source : List.of(Source.FILE, Source.ENVIRONMENT, Source.SYSTEM_PROPERTY)) {
            assertEquals(8192, chosen(new Setting<>(Parameters.EAGER_MAX_SIZE, 8192L, source, "x"), 1, "tcp;ofi_rxm"));
            assertEquals(0, chosen(new Setting<>(Parameters.EAGER_MAX_SIZE, 0L, source, "x"), 1, "tcp;ofi_rxm"));
        }
    }
}
