package io.ofinet.mr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.MrScope;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.Peer;
import io.ofinet.fabric.testing.Peer.Completion;
import io.ofinet.fabric.testing.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Registrations made by the registrar, used for real RMA on the in-memory provider: two hosts,
 * each with two data rails and a control rail on each data rail's domain.
 */
class RegistrarMemTest {
    private static final int RAILS = 2;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** One host: per rail a domain, a data peer and a control peer on that domain. */
    private final class Host {
        final List<Domain> domains = new ArrayList<>();
        final List<Peer> data = new ArrayList<>();
        final List<Peer> control = new ArrayList<>();
        final Rails rails;

        Host(List<Fabric> fabrics) throws Exception {
            List<DomainContext> contexts = new ArrayList<>();
            List<Endpoint> dataEndpoints = new ArrayList<>();
            List<Endpoint> controlEndpoints = new ArrayList<>();
            for (int r = 0; r < RAILS; r++) {
                Domain domain = fabrics.get(r).openDomain();
                domains.add(domain);
                Peer d = new Peer(domain);
                Peer c = new Peer(domain);
                data.add(d);
                control.add(c);
                contexts.add(DomainContext.create(domain, r, MrScope.AUTO, 2));
                dataEndpoints.add(d.endpoint);
                controlEndpoints.add(c.endpoint);
            }
            rails = new Rails(contexts, dataEndpoints, controlEndpoints, new int[] {0, 1});
        }

        void close() throws Exception {
            for (int r = 0; r < RAILS; r++) {
                data.get(r).close();
                control.get(r).close();
                domains.get(r).close();
            }
        }
    }

    private Host a;
    private Host b;

    private void open(MemProvider provider) throws Exception {
        List<Fabric> fabrics = new ArrayList<>();
        try (InfoList offers = provider.getinfo(InfoHints.protocol())) {
            for (FabricInfo info : offers.infos()) {
                fabrics.add(provider.openFabric(info));
            }
        }
        a = new Host(fabrics);
        b = new Host(fabrics);
        toClose.add(() -> {
            a.close();
            b.close();
            for (Fabric f : fabrics) {
                f.close();
            }
        });
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(size);
        toClose.add(0, buffer);
        return buffer;
    }

    /** Writes 256 bytes of {@code src} through {@code via} into {@code to}'s endpoint; returns the completion. */
    private static Completion write(Peer via, Peer to, HostBuffer src, long desc, long remote, long key,
            long context) throws Exception {
        long dest = via.av.insert(to.endpoint.name());
        assertEquals(Endpoint.POSTED, via.endpoint.write(src.address, 256, desc, dest, remote, key, context));
        Completion[] c = new Completion[1];
        Progress.until(Duration.ofSeconds(5), () -> (c[0] = via.take(context)) != null, via, to);
        return c[0];
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void eachRailAndKindUsesItsOwnRegistration(boolean endpointScope) throws Exception {
        MemProvider.Builder builder = MemProvider.builder().domains(RAILS);
        open(endpointScope ? builder.endpointMr().build() : builder.build());
        Registrar registrar = new Registrar(true, 100, 1L << 30, 4096);
        HostBuffer target = buffer(16384);
        HostBuffer source = buffer(4096).pattern(3);
        MrHandle targetMr = registrar.register(b.rails, target.address, target.size, Use.USER_BUFFER);
        MrHandle sourceMr = registrar.register(a.rails, source.address, source.size, Use.USER_BUFFER);
        assertEquals(endpointScope ? Scope.ENDPOINT : Scope.DOMAIN, a.rails.domain(0).scope());

        for (int r = 0; r < RAILS; r++) {
            // Data rail r: a's data endpoint writes into b's buffer with the data-rail key.
            Completion ok = write(a.data.get(r), b.data.get(r), source, sourceMr.descriptor(RailKind.DATA, r),
                    targetMr.remoteAddress(RailKind.DATA, r, 1024 * (r + 1)), targetMr.key(RailKind.DATA, r), 10 + r);
            assertFalse(ok.failed(), ok.toString());
            assertArrayEquals(source.bytes(0, 256), target.bytes(1024 * (r + 1), 256));

            // Control rail r: the control-rail key works on b's control endpoint.
            Completion control = write(a.control.get(r), b.control.get(r), source,
                    sourceMr.descriptor(RailKind.CONTROL, r), targetMr.remoteAddress(RailKind.CONTROL, r, 8192),
                    targetMr.key(RailKind.CONTROL, r), 20 + r);
            assertFalse(control.failed(), control.toString());

            // The data-rail key used on the control rail: refused in endpoint scope, where it is
            // bound to b's data endpoint; the same registration in domain scope.
            Completion crossed = write(a.control.get(r), b.control.get(r), source,
                    sourceMr.descriptor(RailKind.CONTROL, r), targetMr.remoteAddress(RailKind.DATA, r, 12288),
                    targetMr.key(RailKind.DATA, r), 30 + r);
            assertEquals(endpointScope, crossed.failed(), crossed.toString());
            if (endpointScope) {
                assertEquals(FiErrno.FI_EACCES, crossed.errno());
                // A control write posted with a data-rail descriptor: the C++ anchor's bug, refused.
                int rail = r;
                FabricException local = assertThrows(FabricException.class, () -> a.control.get(rail).endpoint.write(
                        source.address, 256, sourceMr.descriptor(RailKind.DATA, rail),
                        a.control.get(rail).av.insert(b.control.get(rail).endpoint.name()), 0,
                        targetMr.key(RailKind.CONTROL, rail), 99));
                assertTrue(local.getMessage().contains("bound to another endpoint"), local.getMessage());
            } else {
                assertEquals(targetMr.key(RailKind.DATA, r), targetMr.key(RailKind.CONTROL, r));
            }
        }
        sourceMr.close();
        targetMr.close();
        assertEquals(0, registrar.cachedEntries());
        assertEquals(0, a.rails.domain(0).keysInUse());
    }

    /**
     * A write still on its way with the key of a buffer that was deregistered meanwhile must not
     * land in the buffer registered next: with offset addressing (no FI_MR_VIRT_ADDR, as on
     * tcp;ofi_rxm) a reused key would take the old offset into the new buffer.
     */
    @Test
    void aStaleKeyDoesNotReachTheNextRegistration() throws Exception {
        open(MemProvider.builder().domains(RAILS).build());
        Registrar registrar = new Registrar(false, 100, 1L << 30, 4096);
        HostBuffer source = buffer(4096).pattern(3);
        MrHandle sourceMr = registrar.register(a.rails, source.address, source.size, Use.USER_BUFFER);
        HostBuffer first = buffer(4096);
        MrHandle firstMr = registrar.register(b.rails, first.address, first.size, Use.USER_BUFFER);
        long staleKey = firstMr.key(RailKind.DATA, 0);
        long staleAddress = firstMr.remoteAddress(RailKind.DATA, 0, 0);
        firstMr.close();
        HostBuffer second = buffer(4096);
        MrHandle secondMr = registrar.register(b.rails, second.address, second.size, Use.USER_BUFFER);

        Completion stale = write(a.data.get(0), b.data.get(0), source, sourceMr.descriptor(RailKind.DATA, 0),
                staleAddress, staleKey, 40);
        assertTrue(stale.failed(), "a write with a deregistered key succeeded: " + stale);
        assertArrayEquals(new byte[256], second.bytes(0, 256));
        secondMr.close();
        sourceMr.close();
    }

    @Test
    void anEndpointCannotBeClosedWhileRegistrationsAreBoundToIt() throws Exception {
        open(MemProvider.builder().domains(RAILS).endpointMr().build());
        Registrar registrar = new Registrar(true, 100, 1L << 30, 4096);
        HostBuffer buf = buffer(4096);
        MrHandle handle = registrar.register(a.rails, buf.address, buf.size, Use.USER_BUFFER);
        FabricException busy = assertThrows(FabricException.class, () -> a.data.get(0).endpoint.close());
        assertEquals(FiErrno.FI_EBUSY, busy.errno());
        handle.close();
        assertEquals(0, registrar.cachedEntries());
        a.data.get(0).endpoint.close();
        assertEquals(Fi.MR_ENDPOINT, a.domains.get(0).info().mrMode() & Fi.MR_ENDPOINT);
    }
}
