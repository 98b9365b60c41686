package io.ofinet.fabric.ofi;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import io.ofinet.fabric.NicAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The real libfabric, loaded from {@code libfabric.so.1}. */
public final class OfiProvider implements FabricProvider {
    /** fi_getinfo flag: the node names the source address. */
    private static final long FI_SOURCE = 1L << 57;

    /**
     * @throws UnsatisfiedLinkError when libfabric is missing or too old, saying how to install it
     */
    public OfiProvider() {
        OfiLibrary.lib();
    }

    @Override
    public io.ofinet.fabric.HostMemory memory() {
        return DataPaths.current();
    }

    @Override
    public String description() {
        return "libfabric " + OfiLibrary.versionString(OfiLibrary.version());
    }

    /**
     * The process is ending without the JVM's shutdown (a host's {@code exit()}, with the JVM inside
     * it): removes the {@code /dev/shm} names of the shm endpoints still open, as the shutdown hook
     * would. Waits for nothing and closes nothing.
     */
    public static void processEnding() {
        ShmNames.removeOpen();
    }

    /** The name of the data path in use: {@code "ffm"} or {@code "jna"}. */
    public static String dataPathName() {
        return DataPaths.current().name();
    }

    @Override
    public InfoList getinfo(InfoHints hints) throws FabricException {
        LibFabric lib = OfiLibrary.lib();
        Pointer h = lib.fi_dupinfo(null);
        if (h == null) {
            throw new FabricException("fi_allocinfo", FiErrno.FI_ENOMEM, "out of memory");
        }
        try {
            long info = Pointer.nativeValue(h);
            h.setLong(NativeOffsets.INFO_CAPS, hints.caps());
            h.setLong(NativeOffsets.INFO_MODE, 0); // no mode bits: contexts are plain values
            long ep = Ops.getLong(info + NativeOffsets.INFO_EP_ATTR);
            new Pointer(ep).setInt(NativeOffsets.EP_TYPE, Fi.EP_RDM);
            Pointer domain = new Pointer(Ops.getLong(info + NativeOffsets.INFO_DOMAIN_ATTR));
            domain.setInt(NativeOffsets.DOMAIN_MR_MODE, hints.mrMode());
            domain.setInt(NativeOffsets.DOMAIN_THREADING, hints.threading());
            domain.setInt(NativeOffsets.DOMAIN_DATA_PROGRESS, hints.dataProgress());
            // The domain name is not passed to libfabric: ofi_rxm over tcp both ignores it (every
            // domain comes back) and, for an interface whose peer is in another network namespace,
            // loses the very domain named. The offers are filtered here instead.
            if (hints.provider().isPresent()) {
                Pointer fabric = new Pointer(Ops.getLong(info + NativeOffsets.INFO_FABRIC_ATTR));
                fabric.setLong(NativeOffsets.FABRIC_PROV_NAME, Ops.strdup(hints.provider().get()));
            }
            PointerByReference out = new PointerByReference();
            String node = hints.node().orElse(null);
            int rc = lib.fi_getinfo(OfiLibrary.API_VERSION, node, null, node == null ? 0 : FI_SOURCE, h, out);
            if (rc == -FiErrno.FI_ENODATA) {
                return new OfiInfoList(0, List.of());
            }
            if (rc < 0) {
                throw Ops.error("fi_getinfo", hints.provider().orElse("any"), rc);
            }
            return list(Pointer.nativeValue(out.getValue()), hints.domain().orElse(null));
        } finally {
            lib.fi_freeinfo(h);
        }
    }

    /** The list, keeping only offers of the required domain, when one is required. */
    private static OfiInfoList list(long head, String domain) {
        List<Long> entries = new ArrayList<>();
        for (long p = head; p != 0; p = Ops.getLong(p + NativeOffsets.INFO_NEXT)) {
            entries.add(p);
        }
        List<FabricInfo> infos = new ArrayList<>();
        OfiInfoList list = new OfiInfoList(head, infos);
        for (long p : entries) {
            FabricInfo info = describe(p, new InfoRef(list, p));
            if (domain == null || info.domain().equals(domain)) {
                infos.add(info);
            }
        }
        return list;
    }

    /** Reads one fi_info into an immutable description. */
    static FabricInfo describe(long info, Object handle) {
        long tx = Ops.getLong(info + NativeOffsets.INFO_TX_ATTR);
        long rx = Ops.getLong(info + NativeOffsets.INFO_RX_ATTR);
        long ep = Ops.getLong(info + NativeOffsets.INFO_EP_ATTR);
        long domain = Ops.getLong(info + NativeOffsets.INFO_DOMAIN_ATTR);
        long fabric = Ops.getLong(info + NativeOffsets.INFO_FABRIC_ATTR);
        return new FabricInfo(
                Ops.string(Ops.getLong(fabric + NativeOffsets.FABRIC_PROV_NAME)),
                Ops.string(Ops.getLong(fabric + NativeOffsets.FABRIC_NAME)),
                Ops.string(Ops.getLong(domain + NativeOffsets.DOMAIN_NAME)),
                Ops.getLong(info + NativeOffsets.INFO_CAPS),
                Ops.getLong(info + NativeOffsets.INFO_MODE),
                Ops.getInt(domain + NativeOffsets.DOMAIN_MR_MODE),
                Ops.getLong(domain + NativeOffsets.DOMAIN_MR_KEY_SIZE),
                Ops.getLong(domain + NativeOffsets.DOMAIN_CQ_DATA_SIZE),
                ep == 0 ? 0 : Ops.getLong(ep + NativeOffsets.EP_MAX_MSG_SIZE),
                tx == 0 ? 0 : Ops.getLong(tx + NativeOffsets.TX_INJECT_SIZE),
                tx == 0 ? 0 : Ops.getLong(tx + NativeOffsets.TX_SIZE),
                rx == 0 ? 0 : Ops.getLong(rx + NativeOffsets.RX_SIZE),
                tx == 0 ? 0 : Ops.getLong(tx + NativeOffsets.TX_MSG_ORDER),
                Ops.getInt(domain + NativeOffsets.DOMAIN_DATA_PROGRESS),
                Ops.getInt(domain + NativeOffsets.DOMAIN_CONTROL_PROGRESS),
                Ops.getInt(domain + NativeOffsets.DOMAIN_THREADING),
                Ops.getInt(info + NativeOffsets.INFO_ADDR_FORMAT),
                Ops.getInt(fabric + NativeOffsets.FABRIC_API_VERSION),
                nic(Ops.getLong(info + NativeOffsets.INFO_NIC)),
                handle);
    }

    private static Optional<NicAttributes> nic(long nic) {
        if (nic == 0) {
            return Optional.empty();
        }
        long device = Ops.getLong(nic + NativeOffsets.NIC_DEVICE_ATTR);
        long bus = Ops.getLong(nic + NativeOffsets.NIC_BUS_ATTR);
        long link = Ops.getLong(nic + NativeOffsets.NIC_LINK_ATTR);
        Optional<String> name = device == 0 ? Optional.empty()
                : Optional.of(Ops.string(Ops.getLong(device + NativeOffsets.DEVICE_NAME))).filter(s -> !s.isEmpty());
        Optional<String> pci = Optional.empty();
        if (bus != 0 && Ops.getInt(bus + NativeOffsets.BUS_TYPE) == NativeOffsets.BUS_TYPE_PCI) {
            long pciAttr = bus + NativeOffsets.BUS_PCI;
            Pointer p = Ops.BASE;
            pci = Optional.of(String.format(Locale.ROOT, "%04x:%02x:%02x.%x",
                    p.getShort(pciAttr + NativeOffsets.PCI_DOMAIN_ID) & 0xffff,
                    p.getByte(pciAttr + NativeOffsets.PCI_BUS_ID) & 0xff,
                    p.getByte(pciAttr + NativeOffsets.PCI_DEVICE_ID) & 0xff,
                    p.getByte(pciAttr + NativeOffsets.PCI_FUNCTION_ID) & 0xff));
        }
        long speed = link == 0 ? 0 : Ops.getLong(link + NativeOffsets.LINK_SPEED);
        long mtu = link == 0 ? 0 : Ops.getLong(link + NativeOffsets.LINK_MTU);
        return Optional.of(new NicAttributes(name, pci, speed, mtu));
    }

    @Override
    public Fabric openFabric(FabricInfo info) throws FabricException {
        if (!(info.handle() instanceof InfoRef ref)) {
            throw new IllegalArgumentException("not an offer of libfabric: " + info);
        }
        long copy = ref.duplicate();
        try {
            PointerByReference out = new PointerByReference();
            long fabricAttr = Ops.getLong(copy + NativeOffsets.INFO_FABRIC_ATTR);
            Ops.check("fi_fabric", info.provider(),
                    OfiLibrary.lib().fi_fabric(new Pointer(fabricAttr), out, null));
            NativeUsage.opened();
            return new OfiFabric(describe(copy, null), copy, Pointer.nativeValue(out.getValue()));
        } catch (FabricException | RuntimeException e) {
            OfiLibrary.lib().fi_freeinfo(new Pointer(copy));
            throw e;
        }
    }

    /** A native fi_info entry inside an open list. */
    record InfoRef(OfiInfoList list, long info) {
        long duplicate() {
            list.requireOpen();
            Pointer copy = OfiLibrary.lib().fi_dupinfo(new Pointer(info));
            if (copy == null) {
                throw new OutOfMemoryError("fi_dupinfo failed");
            }
            return Pointer.nativeValue(copy);
        }
    }
}
