package io.ofinet.plugin;

/**
 * Per-connection settings ({@code ncclNetCommConfig_v10_t}). ofinet accepts a traffic class but
 * does not yet pass it to the provider (fi_tx_attr.tclass); no provider it is tested on has one.
 *
 * @param trafficClass the traffic class to ask of the provider, or {@link #UNDEFINED}
 */
public record ConnectConfig(int trafficClass) {
    /** No traffic class requested. */
    public static final int UNDEFINED = -1;

    /** The default configuration. */
    public static final ConnectConfig DEFAULT = new ConnectConfig(UNDEFINED);
}
