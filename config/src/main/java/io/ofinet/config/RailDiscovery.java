package io.ofinet.config;

import java.util.List;
import java.util.Objects;

/**
 * Finds rails when no layout file is given. The fabric module implements it over {@code
 * fi_getinfo} and registers it for {@link java.util.ServiceLoader}; {@link ConfigLoader} then
 * makes one device per discovered domain, with one data rail and one control rail on it.
 */
public interface RailDiscovery {

    /**
     * The usable provider domains, in the order devices should be numbered.
     *
     * @throws ConfigException when discovery itself fails (libfabric missing, say)
     */
    List<DiscoveredDomain> discover() throws ConfigException;

    /** A short description for reports, e.g. {@code "fi_getinfo (libfabric 1.17)"}. */
    String description();

    /**
     * A provider domain that can carry a data rail.
     *
     * @param provider the libfabric provider, e.g. {@code tcp;ofi_rxm}
     * @param domain the libfabric domain name, e.g. {@code lo}
     */
    record DiscoveredDomain(String provider, String domain) {
        public DiscoveredDomain {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(domain, "domain");
        }
    }
}
