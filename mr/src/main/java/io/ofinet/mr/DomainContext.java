package io.ofinet.mr;

import io.ofinet.config.MrScope;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FabricInfo;
import java.util.List;
import java.util.Objects;

/**
 * One data rail's domain as registration sees it: the domain, its resolved {@link Scope}, and its
 * key pool. Made once per domain and shared by every endpoint on it.
 */
public final class DomainContext {
    private final Domain domain;
    private final int rail;
    private final Scope scope;
    private final KeyPool keys;

    private DomainContext(Domain domain, int rail, Scope scope, KeyPool keys) {
        this.domain = domain;
        this.rail = rail;
        this.scope = scope;
        this.keys = keys;
    }

    /**
     * Resolves the scope of a domain: {@code auto} is endpoint scope exactly when the provider's
     * returned {@code mr_mode} has FI_MR_ENDPOINT. A forced scope the provider cannot honour is an
     * error now, at initialisation, rather than at the first registration.
     *
     * @param rail the data rail the domain serves, for messages
     * @param configured the layout's {@code mrScope}
     * @param mrKeySizeBytes the layout's {@code mrKeySize}
     */
    public static DomainContext create(Domain domain, int rail, MrScope configured, int mrKeySizeBytes)
            throws MrException {
        FabricInfo info = domain.info();
        boolean required = info.requiresEndpointMr();
        Scope scope;
        switch (configured) {
            case DOMAIN:
                if (required) {
                    throw new MrException("data rail " + rail + ": mrScope is domain, but provider "
                            + info.provider() + " requires FI_MR_ENDPOINT (mr_mode " + Fi.mrModeString(info.mrMode())
                            + "): its registrations must be bound to endpoints; use auto or endpoint");
                }
                scope = Scope.DOMAIN;
                break;
            case ENDPOINT:
                if (!required) {
                    throw new MrException("data rail " + rail + ": mrScope is endpoint, but provider "
                            + info.provider() + " does not offer FI_MR_ENDPOINT (mr_mode "
                            + Fi.mrModeString(info.mrMode()) + "): its registrations cannot be bound to"
                            + " endpoints; use auto or domain");
                }
                scope = Scope.ENDPOINT;
                break;
            default:
                scope = required ? Scope.ENDPOINT : Scope.DOMAIN;
                break;
        }
        KeyPool keys = info.providerKeys() ? null
                : new KeyPool(mrKeySizeBytes, (int) Math.max(1, Math.min(8, info.mrKeySizeBytes())));
        return new DomainContext(Objects.requireNonNull(domain), rail, scope, keys);
    }

    public Domain domain() {
        return domain;
    }

    /**
     * Why data rails {@code rails} (in rail order) cannot serve one device, or null: providers that
     * address remote memory differently (by virtual address under FI_MR_VIRT_ADDR, else by offset).
     * A receive announces one address per buffer for every rail, computed as its first rail's
     * provider addresses, so a stripe on a rail of the other kind would be written elsewhere or refused.
     */
    public static String mixedAddressing(List<DomainContext> rails) {
        FabricInfo first = rails.isEmpty() ? null : rails.get(0).info();
        for (DomainContext rail : rails) {
            if (rail.info().virtualAddressing() != first.virtualAddressing()) {
                return "data rails 0 (" + first.provider() + ", " + addressing(first) + ") and " + rail.rail + " ("
                        + rail.info().provider() + ", " + addressing(rail.info()) + ") address remote memory"
                        + " differently, and a receive announces one address per buffer for every data rail: give a"
                        + " device data rails whose providers address alike";
            }
        }
        return null;
    }

    private static String addressing(FabricInfo info) {
        return info.virtualAddressing() ? "by virtual address, FI_MR_VIRT_ADDR" : "by offset";
    }

    public FabricInfo info() {
        return domain.info();
    }

    /** The data rail this domain serves. */
    public int rail() {
        return rail;
    }

    public Scope scope() {
        return scope;
    }

    /** The key pool, or null when the provider chooses keys (FI_MR_PROV_KEY). */
    KeyPool keys() {
        return keys;
    }

    /** Keys in use in this domain; 0 when the provider chooses keys. */
    public long keysInUse() {
        return keys == null ? 0 : keys.inUse();
    }
}
