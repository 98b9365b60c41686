package io.ofinet.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One data rail of a device: a libfabric provider and domain.
 *
 * @param index position in the device's data rails
 * @param provider the libfabric provider name, e.g. {@code tcp;ofi_rxm}
 * @param domain the libfabric domain name; for {@code tcp} and {@code sockets} the network
 *     interface, e.g. {@code lo} or {@code eth0}
 * @param srcAddr the source address to bind to, when the domain alone does not pin it
 */
public record DataRailSpec(int index, String provider, String domain, Optional<String> srcAddr) {
    public DataRailSpec {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(domain, "domain");
        Objects.requireNonNull(srcAddr, "srcAddr");
    }
}
