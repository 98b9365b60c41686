package io.ofinet.rdma;

import io.ofinet.config.DataRailSpec;
import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.HostMemory;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.mr.DomainContext;
import io.ofinet.mr.MrException;
import io.ofinet.mr.Registrar;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.RailSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One device of the layout, opened: a fabric and a domain per data rail, each domain with its
 * resolved registration scope and key pool, and the registrar. Protocol endpoints are opened on
 * it, by default one per thread. Closing it closes its endpoints, then the domains, then the
 * fabrics. While the JVM ends, closes do not wait for peers ({@link Shutdown}).
 *
 * <p>Endpoints of a device share its domains, so the threading model the provider grants decides
 * how far apart their calls may be: each domain is asked for {@code FI_THREAD_SAFE}, and when a
 * provider offers only less, every endpoint of the device holds one lock, {@link #domainLock()},
 * which also serializes their registrations (see {@link RdmaEndpoint} for the ownership rule).
 */
public final class Device implements AutoCloseable {
    private final DeviceSpec spec;
    private final List<Fabric> fabrics = new ArrayList<>();
    private final List<Domain> domains = new ArrayList<>();
    private final List<DomainContext> contexts = new ArrayList<>();
    private final Registrar registrar;
    private final HostMemory memory;
    /** Copy on write: an endpoint's close, the watchdog's included, removes it without the device's monitor. */
    private final List<RdmaEndpoint> endpoints = new CopyOnWriteArrayList<>();
    private final ThreadLocal<RdmaEndpoint> perThread = new ThreadLocal<>();
    /** Held by every endpoint's calls when some domain is not FI_THREAD_SAFE; null otherwise. */
    private ReentrantLock domainLock;
    private boolean closed;

    private Device(DeviceSpec spec, HostMemory memory) {
        this.spec = spec;
        this.memory = memory;
        this.registrar = new Registrar(spec.parameters());
    }

    /**
     * The process is ending without the JVM's shutdown (a C host's {@code exit()}): as the JVM's own
     * hook does ({@link Shutdown}), closes stop waiting for peers and the watchdog stops, and this
     * waits up to {@link Shutdown#WATCHDOG_EXIT_WAIT_MS} for its look in progress. For a process
     * that is ending only: nothing undoes it, and idle endpoints then send no keepalives.
     */
    public static void processEnding() {
        Shutdown.begin();
    }

    /**
     * Opens every data rail of the device: the provider's offer for its domain (and source
     * address), its fabric and domain, and its registration scope. A failure closes what was
     * opened and names the rail.
     */
    public static Device open(FabricProvider provider, DeviceSpec spec) throws RdmaException {
        Device device = new Device(spec, provider.memory());
        Shutdown.watch();
        try {
            for (DataRailSpec rail : spec.dataRails()) {
                InfoHints hints = InfoHints.protocol().withProvider(rail.provider()).withDomain(rail.domain());
                if (RailSet.wantsTagged(spec.parameters().writeNotice(), rail.provider(), spec.dataRails().size())) {
                    hints = hints.withCaps(hints.caps() | Fi.TAGGED);
                }
                if (rail.srcAddr().isPresent()) {
                    hints = hints.withNode(rail.srcAddr().get());
                }
                Fabric fabric;
                try (InfoList offers = offers(provider, hints, !spec.parameters().sourceCheckDisabled())) {
                    if (offers.infos().isEmpty()) {
                        throw new RdmaException(ErrorCategory.SYSTEM, "device " + spec.name() + " data rail "
                                + rail.index() + ": no offer from " + rail.provider() + " on domain " + rail.domain()
                                + " for RDM endpoints with messages and RMA" + ((hints.caps() & Fi.TAGGED) != 0
                                ? " and tagged messages (writeNotice "
                                        + spec.parameters().writeNotice().jsonName() + ")" : ""));
                    }
                    fabric = provider.openFabric(offers.infos().get(0));
                    if (offers.infos().get(0).threading() != Fi.THREAD_SAFE && device.domainLock == null) {
                        device.domainLock = new ReentrantLock();
                    }
                }
                device.fabrics.add(fabric);
                Domain domain = fabric.openDomain();
                device.domains.add(domain);
                device.contexts.add(DomainContext.create(domain, rail.index(), spec.parameters().mrScope(),
                        spec.parameters().mrKeySizeBytes()));
            }
            String mixed = DomainContext.mixedAddressing(device.contexts);
            if (mixed != null) {
                throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "device " + spec.name() + ": " + mixed);
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

    /**
     * The offers with FI_SOURCE when {@code sources} and the provider has them, else without; of
     * those, the offers for FI_THREAD_SAFE domains, or for any threading model when there are none.
     */
    private static InfoList offers(FabricProvider provider, InfoHints hints, boolean sources) throws FabricException {
        if (sources) {
            InfoList withSources = offers(provider, hints.withCaps(hints.caps() | Fi.SOURCE), false);
            if (!withSources.infos().isEmpty()) {
                return withSources;
            }
            withSources.close();
        }
        InfoList safe = provider.getinfo(hints.withThreading(Fi.THREAD_SAFE));
        if (!safe.infos().isEmpty()) {
            return safe;
        }
        safe.close();
        return provider.getinfo(hints);
    }

    public DeviceSpec spec() {
        return spec;
    }

    /** Host memory as the provider's data path reads and writes it. */
    public HostMemory memory() {
        return memory;
    }

    /**
     * The lock every endpoint of this device holds when some domain was granted less than
     * FI_THREAD_SAFE, or null when each endpoint may have its own.
     */
    ReentrantLock domainLock() {
        return domainLock;
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
    public RdmaEndpoint openEndpoint() throws RdmaException {
        return openEndpoint(null);
    }

    /** A new protocol endpoint, opened for {@code owner} (or for no thread in particular: null). */
    private synchronized RdmaEndpoint openEndpoint(Thread owner) throws RdmaException {
        if (closed) {
            throw new RdmaException(ErrorCategory.INVALID_USAGE, "device " + spec.name() + " is closed");
        }
        if (domainLock != null) {
            domainLock.lock();
        }
        try {
            RdmaEndpoint endpoint = new RdmaEndpoint(this, owner);
            endpoints.add(endpoint);
            return endpoint;
        } finally {
            if (domainLock != null) {
                domainLock.unlock();
            }
        }
    }

    /** The statistics of its open endpoints, summed (an endpoint's figures go when it closes). */
    public EndpointStatistics statistics() {
        EndpointStatistics sum = EndpointStatistics.NONE;
        for (RdmaEndpoint endpoint : endpoints) {
            sum = sum.plus(endpoint.statistics());
        }
        return sum;
    }

    /**
     * The calling thread's endpoint, opened on first use (endpoints are per thread by default), and
     * opened again after it closed. It closes once its thread has ended and nothing of it is in use
     * ({@link RdmaEndpoint#closeIfAbandoned}): when a thread opens its own, or at the watchdog's
     * next look; or in its thread's call that leaves it unused with sends stranded in the provider.
     */
    public RdmaEndpoint endpointForCurrentThread() throws RdmaException {
        RdmaEndpoint endpoint = perThread.get();
        if (endpoint == null || endpoint.isClosed()) {
            closeAbandoned();
            endpoint = openEndpoint(Thread.currentThread());
            perThread.set(endpoint);
        }
        return endpoint;
    }

    /** Closes the endpoints their threads left behind, with nothing of them in use. */
    void closeAbandoned() {
        for (RdmaEndpoint endpoint : endpoints) {
            endpoint.closeIfAbandoned();
        }
    }

    /** How many endpoints are open on it. */
    public int openEndpoints() {
        return endpoints.size();
    }

    void closed(RdmaEndpoint endpoint) {
        endpoints.remove(endpoint);
    }

    @Override
    public synchronized void close() throws RdmaException {
        if (closed) {
            return;
        }
        closed = true;
        RdmaException failure = null;
        for (RdmaEndpoint endpoint : endpoints) {
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
