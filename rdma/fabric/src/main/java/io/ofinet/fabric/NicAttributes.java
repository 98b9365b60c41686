package io.ofinet.fabric;

import java.util.Optional;

/**
 * What a provider reports of the NIC behind a domain ({@code fi_info.nic}), when it reports
 * anything: {@code tcp} and {@code shm} report nothing; EFA and verbs report the PCI address and
 * link speed the plugin's device properties need.
 *
 * @param deviceName the device name, e.g. {@code rdmap16s27}
 * @param pciPath the PCI address {@code dddd:bb:dd.f}, when the NIC is on PCI
 * @param linkSpeedBitsPerSecond the link speed in bits per second, 0 when unknown
 * @param mtuBytes the link MTU, 0 when unknown
 */
public record NicAttributes(Optional<String> deviceName, Optional<String> pciPath,
        long linkSpeedBitsPerSecond, long mtuBytes) {
}
