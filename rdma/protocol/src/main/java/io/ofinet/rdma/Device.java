package io.ofinet.rdma;

import io.ofinet.config.DataRailSpec;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.mr.DomainContext;
import io.ofinet.mr.MrException;
import io.ofinet.mr.Registrar;
import java.util.ArrayList;
import java.util.List;

/**
 * One device of the layout, opened: a fabric and a domain per data rail, each domain with its
 * resolved registration scope and key pool, and the registrar. Protocol endpoints are opened on
 * it, by default one per thread. Closing it closes its endpoints, then the domains, then the
 * fabrics.
 */
public final class Device implements AutoCloseable {
    private final DeviceSpec spec;
    private final List<Fabric> fabrics = new ArrayList<>();
    private final List<Domain> domains = new ArrayList<>();
    private final List<DomainContext> contexts = new ArrayList<>();
    private final Registrar registrar;
    private final List<RdmaEndpoint> endpoints = new ArrayList<>();
    private final ThreadLocal<RdmaEndpoint> perThread = new ThreadLocal<>();
    private boolean closed;

    private Device(DeviceSpec spec) {
        this.spec = spec;
        this.registrar = new Registrar(spec.parameters());
    }

    /**
     * Opens every data rail of the device: the provider's offer for its domain (and source
     * address), its fabric and domain, and its registration scope. A failure closes what was
     * opened and names the rail.
     */
    public static Device open(FabricProvider provider, DeviceSpec spec) throws RdmaException {
        Device device = new Device(spec);
        try {
            for (DataRailSpec rail : spec.dataRails()) {
                InfoHints hints = InfoHints.protocol().withProvider(rail.provider()).withDomain(rail.domain());
                if (rail.srcAddr().isPresent()) {
                    hints = hints.withNode(rail.srcAddr().get());
                }
                Fabric fabric;
                try (InfoList offers = provider.getinfo(hints)) {
                    if (offers.infos().isEmpty()) {
                        throw new RdmaException(ErrorCategory.SYSTEM, "device " + spec.name() + " data rail "
                                + rail.index() + ": no offer from " + rail.provider() + " on domain " + rail.domain()
                                + " for RDM endpoints with messages and RMA");
                    }
                    fabric = provider.openFabric(offers.infos().get(0));
                }
                device.fabrics.add(fabric);
                Domain domain = fabric.openDomain();
                device.domains.add(domain);
                device.contexts.add(DomainContext.create(domain, rail.index(), spec.parameters().mrScope(),
                        spec.parameters().mrKeySizeBytes()));
            }
            return device;
        } catch (FabricException | MrException | RuntimeException e) {
            RdmaException failure = new RdmaException(ErrorCategory.SYSTEM, "device " + spec.name() + ": "
                    + e.getMessage(), e);
            device.closeQuietly(failure);
            throw failure;
        } catch (RdmaException e) {
            device.closeQuietly(e);
            throw e;
        }
    }

    public DeviceSpec spec() {
        return spec;
    }

    /** What the provider offers on data rail {@code rail}. */
    public io.ofinet.fabric.FabricInfo railInfo(int rail) {
        return contexts.get(rail).info();
    }

    List<DomainContext> contexts() {
        return contexts;
    }

    Registrar registrar() {
        return registrar;
    }

    /** A new protocol endpoint with all the device's rails. */
    public synchronized RdmaEndpoint openEndpoint() throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "device " + spec.name() + " is closed");
        }
        RdmaEndpoint endpoint = new RdmaEndpoint(this);
        endpoints.add(endpoint);
        return endpoint;
    }

    /** The calling thread's endpoint, opened on first use (endpoints are per thread by default). */
    public RdmaEndpoint endpointForCurrentThread() throws RdmaException {
        RdmaEndpoint endpoint = perThread.get();
        if (endpoint == null || endpoint.isClosed()) {
            endpoint = openEndpoint();
            perThread.set(endpoint);
        }
        return endpoint;
    }

    synchronized void closed(RdmaEndpoint endpoint) {
        endpoints.remove(endpoint);
    }

    @Override
    public synchronized void close() throws RdmaException {
        if (closed) {
            return;
        }
        closed = true;
        RdmaException failure = null;
        for (RdmaEndpoint endpoint : new ArrayList<>(endpoints)) {
            try {
                endpoint.close();
            } catch (RdmaException e) {
                failure = add(failure, e);
            }
        }
        try {
            int left = registrar.closeAll(null);
            if (left > 0) {
                System.getLogger(Device.class.getName()).log(System.Logger.Level.WARNING,
                        "deregistered {0} buffers still registered at the close of device {1}", left, spec.name());
            }
        } catch (io.ofinet.mr.MrException e) {
            failure = add(failure, new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e));
        }
        for (int i = domains.size() - 1; i >= 0; i--) {
            try {
                domains.get(i).close();
            } catch (FabricException e) {
                failure = add(failure, new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e));
            }
        }
        for (int i = fabrics.size() - 1; i >= 0; i--) {
            try {
                fabrics.get(i).close();
            } catch (FabricException e) {
                failure = add(failure, new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e));
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    static RdmaException add(RdmaException first, RdmaException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private void closeQuietly(Exception primary) {
        try {
            close();
        } catch (RdmaException e) {
            primary.addSuppressed(e);
        }
    }
}
