package io.ofinet.fabric.ofi;

import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.RxmPostedBuffers;

/**
 * A child JVM's view of what the binding sets for rxm ({@link RxmSettingsIT}): loads libfabric,
 * prints each variable as the process environment then holds it ({@code NAME=VALUE}), and asks
 * {@code fi_getinfo} for {@code tcp;ofi_rxm}, so that rxm initialises and reads them (which it logs
 * under {@code FI_LOG_LEVEL=info}).
 */
public final class RxmSettingsProbe {
    private RxmSettingsProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (!OfiLibrary.isAvailable()) {
            throw new IllegalStateException("libfabric is not available",
                    OfiLibrary.unavailabilityCause().orElse(null));
        }
        for (String variable : new String[] {RxmPostedBuffers.VARIABLE, RxmBufferSize.VARIABLE,
            RxmEagerLimit.VARIABLE}) {
            System.out.println(variable + "=" + LibC.INSTANCE.getenv(variable));
        }
        try (InfoList infos = new OfiProvider().getinfo(InfoHints.protocol().withProvider("tcp;ofi_rxm"))) {
            System.out.println("fi_getinfo: done, " + infos.infos().size() + " answer(s)");
        }
    }
}
