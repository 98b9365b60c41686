package io.ofinet.fabric.ofi;

import io.ofinet.fabric.RxmBufferSize;
import io.ofinet.fabric.RxmPostedBuffers;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code ofi_rxm} settings ofinet chooses for {@code tcp}: how many buffers rxm posts for
 * arriving messages ({@link RxmPostedBuffers}) and the size of its buffers ({@link RxmBufferSize}).
 * rxm reads them once, when libfabric initialises its providers at the process's first
 * {@code fi_getinfo}, and applies them over every core provider. Over {@code verbs} they would
 * cost: it posts its buffers per connection, and its eager limit is the buffer size. So
 * {@link #beforeGetinfo} sets them in the process environment, each unless the environment has
 * it, just before the process's first {@code fi_getinfo}, and only when that one asks for
 * {@code tcp} under {@code ofi_rxm}. A first {@code fi_getinfo} for any other provider, or for
 * every provider (discovery, without a layout), leaves rxm's own defaults for the process.
 */
final class RxmTcpDefaults {
    /** Each variable with the value set when the environment does not have it. */
    static final Map<String, String> VALUES = Map.of(
            RxmPostedBuffers.VARIABLE, Integer.toString(RxmPostedBuffers.DEFAULT),
            RxmBufferSize.VARIABLE, Integer.toString(RxmBufferSize.DEFAULT));

    private static boolean decided;

    private RxmTcpDefaults() {
    }

    /**
     * Called before every {@code fi_getinfo} with the provider it asks for: the first call decides
     * for the process, and the others wait until it has.
     *
     * @return whether this call set the values (or found them set): the first, asking for tcp under rxm
     */
    static synchronized boolean beforeGetinfo(Optional<String> provider) {
        if (decided) {
            return false;
        }
        decided = true;
        if (provider.isEmpty() || !tcpUnderRxm(provider.get())) {
            return false;
        }
        for (Map.Entry<String, String> variable : VALUES.entrySet()) {
            if (LibC.INSTANCE.setenv(variable.getKey(), variable.getValue(), 0) != 0) {
                throw new IllegalStateException("setenv " + variable.getKey() + " failed");
            }
        }
        return true;
    }

    /** Whether {@code provider} (libfabric's spelling, layered with ';') is tcp under ofi_rxm. */
    static boolean tcpUnderRxm(String provider) {
        String[] layers = provider.toLowerCase(Locale.ROOT).split(";");
        return layers.length == 2 && layers[0].strip().equals("tcp") && layers[1].strip().equals("ofi_rxm");
    }
}
