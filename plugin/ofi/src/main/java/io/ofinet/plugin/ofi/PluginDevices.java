package io.ofinet.plugin.ofi;

import io.ofinet.config.ConfigException;
import io.ofinet.config.DeviceSpec;
import io.ofinet.config.Parameters;
import io.ofinet.config.RailLayout;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.NicAttributes;
import io.ofinet.fabric.ofi.NativeUsage;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.Device;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The plugin's devices: the provider and layout read at {@code init}, each device opened on first
 * use, what {@code getProperties} and {@code statistics} report of them, and their close.
 */
final class PluginDevices {
    private static final System.Logger LOG = System.getLogger(OfiNetPlugin.class.getName());
    /** Link speed reported when neither the provider nor sysfs says (Mbps). */
    static final int FALLBACK_SPEED_MBPS = 10_000;

    /** A source of the layout; throws as the loader does. */
    @FunctionalInterface
    interface LayoutSource {
        RailLayout load() throws ConfigException;
    }

    private final Supplier<FabricProvider> providers;
    private final LayoutSource layoutSource;
    private FabricProvider provider;
    private RailLayout layout;
    private Device[] devices;

    PluginDevices(Supplier<FabricProvider> providers, LayoutSource layoutSource) {
        this.providers = providers;
        this.layoutSource = layoutSource;
    }

    synchronized void init() throws NetException {
        if (layout != null) {
            return;
        }
        try {
            DebugLogging.fromEnvironment();
            provider = providers.get();
            layout = layoutSource.load();
            devices = new Device[layout.devices().size()];
            for (DeviceSpec device : layout.devices()) {
                LOG.log(System.Logger.Level.INFO, "device {0}: data rails {1}, control rails on data rails {2},"
                        + " MR scope {3}, writeNotice {4}, data path {5}", device.name(),
                        device.dataRails().stream().map(r -> r.provider() + "/" + r.domain()).toList(),
                        device.controlRails().stream().map(c -> c.dataRail()).toList(),
                        device.parameters().mrScope().jsonName(), device.parameters().writeNotice().jsonName(),
                        provider instanceof OfiProvider ? OfiProvider.dataPathName() : provider.getClass().getSimpleName());
            }
        } catch (IllegalArgumentException e) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "init: " + e.getMessage(), e);
        } catch (ConfigException e) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "init: invalid configuration: " + e.getMessage(), e);
        } catch (UnsatisfiedLinkError e) {
            throw new NetException(NetResult.SYSTEM_ERROR, "init: " + e.getMessage(), e);
        }
    }

    private void requireInit() throws NetException {
        if (layout == null) {
            throw new NetException(NetResult.INVALID_USAGE, "the plugin is not initialised: call init() first");
        }
    }

    synchronized int count() throws NetException {
        requireInit();
        return devices.length;
    }

    /** The layout's device {@code dev}, after the plugin's init; a device that does not exist is refused. */
    private DeviceSpec spec(int dev) throws NetException {
        requireInit();
        if (dev < 0 || dev >= devices.length) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "device " + dev + " does not exist; there are "
                    + devices.length);
        }
        return layout.devices().get(dev);
    }

    synchronized Device device(int dev) throws NetException {
        DeviceSpec spec = spec(dev);
        if (devices[dev] == null) {
            try {
                devices[dev] = Device.open(provider, spec);
            } catch (RdmaException e) {
                throw Errors.toNetException("open device " + dev, e);
            }
        }
        return devices[dev];
    }

    /** The providers of device {@code dev}'s data rails, from its layout: nothing is opened. */
    synchronized List<String> dataRailProviders(int dev) throws NetException {
        return spec(dev).dataRails().stream().map(r -> r.provider()).toList();
    }

    DeviceProperties properties(int dev) throws NetException {
        Device device = device(dev);
        DeviceSpec spec = device.spec();
        FabricInfo info = device.railInfo(0);
        String domain = spec.dataRails().get(0).domain();
        Optional<NicAttributes> nic = info.nic();
        String pciPath = nic.flatMap(NicAttributes::pciPath).map(p -> "/sys/bus/pci/devices/" + p)
                .orElseGet(() -> sysfsDevicePath(domain));
        int speed = nic.map(n -> (int) (n.linkSpeedBitsPerSecond() / 1_000_000)).filter(s -> s > 0)
                .orElseGet(() -> sysfsSpeedMbps(domain).orElse(FALLBACK_SPEED_MBPS));
        int rails = spec.dataRails().size();
        return new DeviceProperties(spec.name(), pciPath, 0x6f66696e00000000L | dev, MemoryType.HOST.bit(),
                !spec.parameters().mrCacheDisabled(), false, speed * rails, 0,
                spec.parameters().get(Parameters.LATENCY_US).floatValue(), Limits.MAX_COMMS, Limits.MAX_RECVS,
                0, 0, OfiNetPlugin.MAX_P2P_BYTES, OfiNetPlugin.MAX_P2P_BYTES);
    }

    /** The NIC's device directory in sysfs, for topology; empty for virtual interfaces. */
    private static String sysfsDevicePath(String iface) {
        Path link = Path.of("/sys/class/net", iface, "device");
        try {
            return Files.exists(link) ? link.toRealPath().toString() : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static Optional<Integer> sysfsSpeedMbps(String iface) {
        try {
            int speed = Integer.parseInt(Files.readString(Path.of("/sys/class/net", iface, "speed")).trim());
            return speed > 0 ? Optional.of(speed) : Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The device's figures, then what the process holds through the libfabric binding (open
     * objects, registrations, address vector entries, native bytes), when the binding is in use.
     */
    Map<String, Long> statistics(int dev) throws NetException {
        Device device = device(dev);
        Map<String, Long> map = new java.util.LinkedHashMap<>(device.statistics().asMap());
        map.put("endpoints", (long) device.openEndpoints());
        if (provider instanceof OfiProvider) {
            map.putAll(NativeUsage.asMap());
        }
        return map;
    }

    synchronized void close() throws NetException {
        if (devices == null) {
            return;
        }
        List<RdmaException> failures = new ArrayList<>();
        for (Device device : devices) {
            if (device != null) {
                try {
                    device.close();
                } catch (RdmaException e) {
                    failures.add(e);
                }
            }
        }
        devices = null;
        layout = null;
        if (!failures.isEmpty()) {
            NetException e = Errors.toNetException("close", failures.get(0));
            failures.subList(1, failures.size()).forEach(e::addSuppressed);
            throw e;
        }
    }
}
