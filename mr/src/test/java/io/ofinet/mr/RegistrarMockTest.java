package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.config.MrScope;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * Which registrations are made for each scope, on which endpoints, in which order, and how they
 * are undone; against Mockito mocks of the provider interfaces.
 */
class RegistrarMockTest {
    private static final long ADDRESS = 0x10000;
    private static final long LENGTH = 8192;

    private final List<Domain> domains = new ArrayList<>();
    private final List<Endpoint> dataEndpoints = new ArrayList<>();
    private final List<Endpoint> controlEndpoints = new ArrayList<>();
    /** Every region registered, per domain, in order. */
    private final List<List<MemoryRegion>> regions = new ArrayList<>();
    private final List<DomainContext> contexts = new ArrayList<>();

    private Rails rails(int mrMode, int railCount) throws Exception {
        for (int r = 0; r < railCount; r++) {
            Domain domain = mock(Domain.class, "domain" + r);
            when(domain.info()).thenReturn(Infos.info("mock", mrMode));
            List<MemoryRegion> made = new ArrayList<>();
            regions.add(made);
            when(domain.register(anyLong(), anyLong(), anyLong(), anyLong(), anyInt())).thenAnswer(call -> {
                MemoryRegion mr = mock(MemoryRegion.class, "mr" + made.size() + "@domain" + domains.indexOf(domain));
                when(mr.address()).thenReturn(call.getArgument(0));
                when(mr.length()).thenReturn(call.getArgument(1));
                when(mr.descriptor()).thenReturn(1000L * domains.indexOf(domain) + made.size() + 1);
                made.add(mr);
                return mr;
            });
            domains.add(domain);
            dataEndpoints.add(mock(Endpoint.class, "data" + r));
            controlEndpoints.add(mock(Endpoint.class, "control" + r));
            contexts.add(DomainContext.create(domain, r, MrScope.AUTO, 2));
        }
        int[] onData = new int[railCount];
        for (int c = 0; c < railCount; c++) {
            onData[c] = c;
        }
        return new Rails(contexts, dataEndpoints, controlEndpoints, onData);
    }

    private static Registrar uncached() {
        return new Registrar(false, 0, 0, 4096);
    }

    @Test
    void domainScopeRegistersOncePerDomainAndControlRailsReuseIt() throws Exception {
        Rails rails = rails(0, 2);
        MrHandle handle = uncached().register(rails, ADDRESS, LENGTH, Use.USER_BUFFER);
        for (int r = 0; r < 2; r++) {
            verify(domains.get(r), times(1)).register(ADDRESS, LENGTH, Use.USER_BUFFER.access(), 0, Fi.HMEM_SYSTEM);
            MemoryRegion mr = regions.get(r).get(0);
            verify(mr, never()).bind(org.mockito.ArgumentMatchers.any(), anyLong());
            verify(mr, never()).enable();
            assertEquals(handle.descriptor(RailKind.DATA, r), handle.descriptor(RailKind.CONTROL, r));
            assertEquals(handle.key(RailKind.DATA, r), handle.key(RailKind.CONTROL, r));
        }
        handle.close();
        verify(regions.get(0).get(0), times(1)).close();
        verify(regions.get(1).get(0), times(1)).close();
        handle.close(); // closing twice is harmless
        verify(regions.get(0).get(0), times(1)).close();
        assertEquals(0, contexts.get(0).keysInUse());
    }

    @Test
    void endpointScopeBindsEachRegistrationToItsRailsEndpointThenEnables() throws Exception {
        Rails rails = rails(Fi.MR_ENDPOINT, 2);
        MrHandle handle = uncached().register(rails, ADDRESS, LENGTH, Use.USER_BUFFER);
        for (int r = 0; r < 2; r++) {
            assertEquals(2, regions.get(r).size(), "a data and a control registration on domain " + r);
            MemoryRegion data = regions.get(r).get(0);
            MemoryRegion control = regions.get(r).get(1);
            InOrder order = inOrder(domains.get(r), data, control);
            order.verify(domains.get(r)).register(eq(ADDRESS), eq(LENGTH), eq(Use.USER_BUFFER.access()), anyLong(),
                    eq(Fi.HMEM_SYSTEM));
            order.verify(data).bind(dataEndpoints.get(r), 0);
            order.verify(data).enable();
            order.verify(domains.get(r)).register(eq(ADDRESS), eq(LENGTH), eq(Use.USER_BUFFER.access()), anyLong(),
                    eq(Fi.HMEM_SYSTEM));
            order.verify(control).bind(controlEndpoints.get(r), 0);
            order.verify(control).enable();
            verify(data, never()).bind(controlEndpoints.get(r), 0);
            assertNotEquals(handle.key(RailKind.DATA, r), handle.key(RailKind.CONTROL, r),
                    "data and control registrations of one buffer on one domain need different keys");
            assertNotEquals(handle.descriptor(RailKind.DATA, r), handle.descriptor(RailKind.CONTROL, r));
        }
        assertEquals(2, contexts.get(0).keysInUse());
        handle.close();
        // Teardown in reverse: control registrations before data ones, newest first.
        InOrder teardown = inOrder(regions.get(1).get(1), regions.get(0).get(1), regions.get(1).get(0),
                regions.get(0).get(0));
        teardown.verify(regions.get(1).get(1)).close();
        teardown.verify(regions.get(0).get(1)).close();
        teardown.verify(regions.get(1).get(0)).close();
        teardown.verify(regions.get(0).get(0)).close();
        assertEquals(0, contexts.get(0).keysInUse());
        assertEquals(0, contexts.get(1).keysInUse());
    }

    @Test
    void internalBuffersAreRegisteredOnlyWhereTheyAreUsed() throws Exception {
        Rails rails = rails(Fi.MR_ENDPOINT, 2);
        Registrar registrar = uncached();
        MrHandle mailbox = registrar.register(rails, ADDRESS, 4096, Use.CONTROL_MAILBOX);
        verify(regions.get(0).get(0)).bind(controlEndpoints.get(0), 0);
        verify(regions.get(1).get(0)).bind(controlEndpoints.get(1), 0);
        IllegalStateException wrongKind = assertThrows(IllegalStateException.class,
                () -> mailbox.descriptor(RailKind.DATA, 0));
        assertEquals("CONTROL_MAILBOX is not registered for data rails", wrongKind.getMessage());
        MrHandle flush = registrar.register(rails, ADDRESS + 65536, 64, Use.FLUSH_BUFFER);
        verify(regions.get(0).get(1)).bind(dataEndpoints.get(0), 0);
        verify(domains.get(0)).register(ADDRESS + 65536, 64, Fi.READ | Fi.RECV, 1, Fi.HMEM_SYSTEM);
        assertThrows(IllegalStateException.class, () -> flush.key(RailKind.CONTROL, 0));
        mailbox.close();
        flush.close();
    }

    @Test
    void aBindFailureOnTheSecondRailUndoesTheFirstAndNamesRailAndCall() throws Exception {
        Rails rails = rails(Fi.MR_ENDPOINT, 2);
        // The second domain's first region refuses to bind.
        doAnswer(call -> {
            MemoryRegion mr = mock(MemoryRegion.class, "failing");
            doThrow(new FabricException("fi_mr_bind (provider mock)", FiErrno.FI_EINVAL, "Invalid argument"))
                    .when(mr).bind(org.mockito.ArgumentMatchers.any(), anyLong());
            regions.get(1).add(mr);
            return mr;
        }).when(domains.get(1)).register(anyLong(), anyLong(), anyLong(), anyLong(), anyInt());
        MrException e = assertThrows(MrException.class,
                () -> uncached().register(rails, ADDRESS, LENGTH, Use.USER_BUFFER));
        assertEquals("registering 8192 bytes at 0x10000 as USER_BUFFER failed on data rail 1:"
                + " fi_mr_bind (provider mock) failed: FI_EINVAL (Invalid argument)", e.getMessage());
        verify(regions.get(0).get(0)).close(); // the first rail's registration is undone
        verify(regions.get(1).get(0)).close(); // and the half-made one
        verify(regions.get(1).get(0), never()).enable();
        assertEquals(0, contexts.get(0).keysInUse());
        assertEquals(0, contexts.get(1).keysInUse());
    }

    @Test
    void cachedUserBuffersShareOnePageRoundedRegistration() throws Exception {
        Rails rails = rails(0, 1);
        Registrar registrar = new Registrar(true, 100, 1L << 30, 4096);
        MrHandle a = registrar.register(rails, 0x10100, 100, Use.USER_BUFFER);
        MrHandle b = registrar.register(rails, 0x10800, 200, Use.USER_BUFFER);
        verify(domains.get(0), times(1)).register(0x10000, 4096, Use.USER_BUFFER.access(), 0, Fi.HMEM_SYSTEM);
        assertTrue(a.cached() && b.cached());
        assertEquals(0x100 + 10, a.remoteAddress(RailKind.DATA, 0, 10), "offset from the registration's page");
        assertEquals(0x800, b.remoteAddress(RailKind.DATA, 0, 0));
        a.close();
        verify(regions.get(0).get(0), never()).close();
        b.close();
        verify(regions.get(0).get(0)).close();
        assertEquals(0, registrar.cachedEntries());
    }

    @Test
    void pastItsBoundsOrWhenSwitchedOffRegistrationsBypassTheCache() throws Exception {
        Rails rails = rails(0, 1);
        Registrar oneEntry = new Registrar(true, 1, 1L << 30, 4096);
        MrHandle first = oneEntry.register(rails, 0x10000, 4096, Use.USER_BUFFER);
        MrHandle second = oneEntry.register(rails, 0x20000, 4096, Use.USER_BUFFER);
        assertTrue(first.cached());
        assertTrue(!second.cached(), "beyond mrCacheMaxEntries");
        Registrar fewBytes = new Registrar(true, 100, 4096, 4096);
        assertTrue(!fewBytes.register(rails, 0x30000, 8192, Use.USER_BUFFER).cached(), "beyond mrCacheMaxBytes");
        assertTrue(!uncached().register(rails, 0x40000, 64, Use.USER_BUFFER).cached());
        second.close();
        first.close();
    }

    @Test
    void closeAllReleasesWhatTheApplicationForgotAndLaterClosesAreHarmless() throws Exception {
        Rails rails = rails(Fi.MR_ENDPOINT, 1);
        Registrar registrar = new Registrar(true, 100, 1L << 30, 4096);
        MrHandle cached = registrar.register(rails, 0x10000, 100, Use.USER_BUFFER);
        MrHandle internal = registrar.register(rails, 0x90000, 64, Use.FLUSH_BUFFER);
        assertEquals(2, registrar.closeAll(rails));
        for (MemoryRegion mr : regions.get(0)) {
            verify(mr, times(1)).close();
        }
        assertEquals(0, contexts.get(0).keysInUse());
        assertEquals(0, registrar.cachedEntries());
        cached.close();
        internal.close();
        for (MemoryRegion mr : regions.get(0)) {
            verify(mr, times(1)).close();
        }
        assertEquals(0, registrar.cachedEntries());
    }

    @Test
    void theCachesBoundsHoldForTheDeviceOverEveryEndpointsCache() throws Exception {
        Rails first = rails(Fi.MR_ENDPOINT, 1);
        Rails second = new Rails(contexts, List.of(mock(Endpoint.class)), List.of(mock(Endpoint.class)), new int[] {0});
        Registrar twoEntries = new Registrar(true, 2, 1L << 30, 4096);
        assertTrue(twoEntries.register(first, 0x10000, 4096, Use.USER_BUFFER).cached());
        assertTrue(twoEntries.register(second, 0x20000, 4096, Use.USER_BUFFER).cached());
        assertTrue(!twoEntries.register(second, 0x30000, 4096, Use.USER_BUFFER).cached(), "the device's third entry");
        assertEquals(2, twoEntries.cachedEntries());
        Registrar twoPages = new Registrar(true, 100, 8192, 4096);
        assertTrue(twoPages.register(first, 0x10000, 4096, Use.USER_BUFFER).cached());
        assertTrue(twoPages.register(second, 0x20000, 4096, Use.USER_BUFFER).cached());
        assertTrue(!twoPages.register(second, 0x30000, 4096, Use.USER_BUFFER).cached(), "the device's third page");
    }

    @Test
    void aDeregistrationTheProviderFailsIsTriedAgainWhenTheEndpointCloses() throws Exception {
        Rails rails = rails(Fi.MR_ENDPOINT, 1);
        Registrar registrar = new Registrar(true, 100, 1L << 30, 4096);
        MrHandle handle = registrar.register(rails, 0x10000, 100, Use.USER_BUFFER);
        MemoryRegion region = regions.get(0).get(0);
        doThrow(new FabricException("fi_close", FiErrno.FI_EAGAIN, "mock")).doNothing().when(region).close();
        assertThrows(MrException.class, handle::close);
        assertEquals(1, contexts.get(0).keysInUse(), "its key stays taken while the region is open");
        handle.close(); // the handle is closed: harmless
        assertEquals(1, registrar.closeAll(rails), "what did not close is released with its endpoint");
        verify(region, times(2)).close();
        assertEquals(0, contexts.get(0).keysInUse());
        assertEquals(0, registrar.closeAll(null), "nothing left");
    }
}
