package io.ofinet.fabric.ofi;

import io.ofinet.config.ConfigException;
import io.ofinet.config.RailDiscovery;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.ProviderPolicy;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Discovers rails from {@code fi_getinfo} when no layout is given: one device per provider
 * domain that offers what the protocol needs, loopback included, in libfabric's order.
 *
 * <p>Left out: domains named by subnet ({@code 127.0.0.1/32}; {@code tcp} lists each interface
 * twice, by name and by subnet), {@code ofi_mrail} (no writedata in 1.17: multi-rail is
 * ofinet's job) and hook providers.
 */
public final class OfiDiscovery implements RailDiscovery {

    @Override
    public String description() {
        return OfiLibrary.isAvailable()
                ? "fi_getinfo (libfabric " + OfiLibrary.versionString(OfiLibrary.version()) + ")"
                : "fi_getinfo (libfabric unavailable)";
    }

    @Override
    public List<DiscoveredDomain> discover() throws ConfigException {
        if (!OfiLibrary.isAvailable()) {
            throw new ConfigException("fi_getinfo", "",
                    OfiLibrary.unavailabilityCause().map(Throwable::getMessage).orElse("libfabric is not available"));
        }
        Set<DiscoveredDomain> domains = new LinkedHashSet<>();
        try (InfoList offers = new OfiProvider().getinfo(InfoHints.protocol())) {
            for (FabricInfo info : offers.infos()) {
                if (usable(info)) {
                    domains.add(new DiscoveredDomain(info.provider(), info.domain()));
                }
            }
        } catch (FabricException e) {
            throw new ConfigException("fi_getinfo", "", e.getMessage(), e);
        }
        return new ArrayList<>(domains);
    }

    static boolean usable(FabricInfo info) {
        return !info.domain().contains("/") && !ProviderPolicy.of(info).utilityOnly() && !info.domain().isEmpty();
    }
}
