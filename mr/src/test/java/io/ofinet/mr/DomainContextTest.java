package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.ofinet.config.MrScope;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fi;
import java.util.List;
import org.junit.jupiter.api.Test;

class DomainContextTest {

    private static Domain domain(int mrMode) {
        Domain domain = mock(Domain.class);
        when(domain.info()).thenReturn(Infos.info("prov", mrMode));
        return domain;
    }

    @Test
    void autoFollowsTheProvidersMrMode() throws MrException {
        assertEquals(Scope.DOMAIN, DomainContext.create(domain(0), 0, MrScope.AUTO, 2).scope());
        assertEquals(Scope.ENDPOINT, DomainContext.create(domain(Fi.MR_ENDPOINT), 0, MrScope.AUTO, 2).scope());
    }

    @Test
    void forcedScopesTheProviderCannotHonourFailAtInitialisation() {
        MrException endpoint = assertThrows(MrException.class,
                () -> DomainContext.create(domain(Fi.MR_VIRT_ADDR), 1, MrScope.ENDPOINT, 2));
        assertEquals("data rail 1: mrScope is endpoint, but provider prov does not offer FI_MR_ENDPOINT"
                + " (mr_mode [FI_MR_VIRT_ADDR]): its registrations cannot be bound to endpoints; use auto or domain",
                endpoint.getMessage());
        MrException domain = assertThrows(MrException.class,
                () -> DomainContext.create(domain(Fi.MR_ENDPOINT), 0, MrScope.DOMAIN, 2));
        assertEquals("data rail 0: mrScope is domain, but provider prov requires FI_MR_ENDPOINT"
                + " (mr_mode [FI_MR_ENDPOINT]): its registrations must be bound to endpoints; use auto or endpoint",
                domain.getMessage());
    }

    @Test
    void dataRailsThatAddressRemoteMemoryDifferentlyCannotServeOneDevice() throws MrException {
        DomainContext offsets = DomainContext.create(domain(0), 0, MrScope.AUTO, 2);
        DomainContext virtual = DomainContext.create(domain(Fi.MR_VIRT_ADDR), 1, MrScope.AUTO, 2);
        assertEquals(null, DomainContext.mixedAddressing(List.of(offsets, offsets)));
        assertEquals(null, DomainContext.mixedAddressing(List.of(virtual)));
        assertEquals("data rails 0 (prov, by offset) and 1 (prov, by virtual address, FI_MR_VIRT_ADDR) address"
                + " remote memory differently, and a receive announces one address per buffer for every data rail:"
                + " give a device data rails whose providers address alike",
                DomainContext.mixedAddressing(List.of(offsets, virtual)));
    }

    @Test
    void keyPoolFollowsTheSmallerKeySizeAndIsIdleWithProviderKeys() throws MrException {
        DomainContext ctx = DomainContext.create(domain(0), 0, MrScope.AUTO, 2);
        assertEquals(65536, ctx.keys().capacity());
        assertEquals(null, DomainContext.create(domain(Fi.MR_PROV_KEY), 0, MrScope.AUTO, 2).keys());
    }
}
