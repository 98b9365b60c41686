package io.ofinet.fabric;

import java.util.Objects;
import java.util.Optional;

/**
 * An immutable description of one offer from {@code fi_getinfo}: one provider on one domain with
 * its attributes. Opening a fabric needs the {@link InfoList} it came from to be open.
 *
 * @param provider provider name, e.g. {@code tcp;ofi_rxm}
 * @param fabric fabric name
 * @param domain domain name, e.g. {@code lo}
 * @param caps capability bits ({@link Fi#MSG}, ...)
 * @param mode mode bits the provider requires
 * @param mrMode registration mode bits ({@link Fi#MR_ENDPOINT}, ...)
 * @param mrKeySizeBytes bytes of a registration key
 * @param cqDataSizeBytes bytes of immediate data a completion can carry
 * @param maxMsgSizeBytes largest message
 * @param injectSizeBytes largest inject
 * @param txSize transmit queue depth
 * @param rxSize receive queue depth
 * @param msgOrder the transmit side's message ordering bits ({@link Fi#ORDER_SAW}, ...)
 * @param dataProgress {@link Fi#PROGRESS_AUTO} or {@link Fi#PROGRESS_MANUAL}
 * @param controlProgress likewise for control operations
 * @param threading {@link Fi#THREAD_SAFE}, ...
 * @param addressFormat {@link Fi#SOCKADDR_IN}, ...
 * @param apiVersion the libfabric API version the provider serves, {@code major << 16 | minor}
 * @param nic the NIC's attributes when the provider reports them
 * @param handle the provider's own reference to the native description; opaque
 */
public record FabricInfo(String provider, String fabric, String domain, long caps, long mode,
        int mrMode, long mrKeySizeBytes, long cqDataSizeBytes, long maxMsgSizeBytes,
        long injectSizeBytes, long txSize, long rxSize, long msgOrder, int dataProgress, int controlProgress,
        int threading, int addressFormat, int apiVersion, Optional<NicAttributes> nic, Object handle) {

    public FabricInfo {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(fabric, "fabric");
        Objects.requireNonNull(domain, "domain");
        Objects.requireNonNull(nic, "nic");
    }

    /** Whether registrations must be bound to an endpoint and enabled (FI_MR_ENDPOINT). */
    public boolean requiresEndpointMr() {
        return (mrMode & Fi.MR_ENDPOINT) != 0;
    }

    /** Whether remote addresses are virtual addresses rather than offsets (FI_MR_VIRT_ADDR). */
    public boolean virtualAddressing() {
        return (mrMode & Fi.MR_VIRT_ADDR) != 0;
    }

    /** Whether the provider chooses registration keys (FI_MR_PROV_KEY). */
    public boolean providerKeys() {
        return (mrMode & Fi.MR_PROV_KEY) != 0;
    }

    /**
     * Whether a send posted after a write to the same peer arrives after the write's data
     * (FI_ORDER_SAW in the transmit side's {@code msg_order}).
     */
    public boolean sendsFollowWrites() {
        return (msgOrder & Fi.ORDER_SAW) != 0;
    }

    /** One line for logs and reports. */
    public String summary() {
        return provider + " domain " + domain + " mr_mode " + Fi.mrModeString(mrMode)
                + " key " + mrKeySizeBytes + " B, cq data " + cqDataSizeBytes + " B, inject "
                + injectSizeBytes + " B, tx " + txSize + ", rx " + rxSize + ", data progress "
                + Fi.progressString(dataProgress) + ", " + Fi.threadingString(threading);
    }

    @Override
    public String toString() {
        return "FabricInfo[" + summary() + "]";
    }
}
