package io.ofinet.mr;

import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import java.util.Optional;

/** Offers for tests. */
final class Infos {
    private Infos() {
    }

    static FabricInfo info(String provider, int mrMode) {
        return new FabricInfo(provider, "fabric", "dom", 0, 0, mrMode, 8, 8, Long.MAX_VALUE, 64, 256, 256, 0,
                Fi.PROGRESS_MANUAL, Fi.PROGRESS_MANUAL, Fi.THREAD_SAFE, 0, (1 << 16) | 17, Optional.empty(), null);
    }
}
