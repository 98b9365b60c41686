package io.ofinet.fabric.ofi;

import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmEagerLimit;
import io.ofinet.fabric.RxmPostedBuffers;

/**
 * A child JVM's view of what the binding sets for rxm ({@link RxmSettingsIT}): loads libfabric,
 * prints each variable as the process environment then holds it ({@code NAME=VALUE}), asks
 * {@code fi_getinfo} for the provider named by its argument, which initialises rxm (rxm reads the
 * variables then, and logs them under {@code FI_LOG_LEVEL=info}), prints them again after it
 * ({@code after: NAME=VALUE}), then asks for {@code tcp;ofi_rxm}.
 */
public final class RxmSettingsProbe {
    private static final String[] VARIABLES = {RxmPostedBuffers.VARIABLE, RxmBufferSize.VARIABLE,
        RxmEagerLimit.VARIABLE};

    private RxmSettingsProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (!OfiLibrary.isAvailable()) {
            throw new IllegalStateException("libfabric is not available",
                    OfiLibrary.unavailabilityCause().orElse(null));
        }
        for (String variable : VARIABLES) {
            System.out.println(variable + "=" + LibC.INSTANCE.getenv(variable));
        }
        for (String provider : new String[] {args[0], "tcp;ofi_rxm"}) {
            try (InfoList infos = new OfiProvider().getinfo(InfoHints.protocol().withProvider(provider))) {
                System.out.println("fi_getinfo " + provider + ": done, " + infos.infos().size() + " answer(s)");
            }
            for (String variable : VARIABLES) {
                System.out.println("after: " + variable + "=" + LibC.INSTANCE.getenv(variable));
            }
        }
    }
}
