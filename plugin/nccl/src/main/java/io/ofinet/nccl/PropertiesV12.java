package io.ofinet.nccl;

import io.ofinet.plugin.DeviceProperties;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Writes {@code ncclNetProperties_v12_t} (128 bytes; the offsets are NCCL 2.30's, pinned by
 * PropertiesV12Test and by the C driver's layout check). Strings are allocated once per device and
 * live as long as the process, as NCCL keeps the pointers.
 */
final class PropertiesV12 {
    static final int SIZE = 128;
    static final int NAME = 0;
    static final int PCI_PATH = 8;
    static final int GUID = 16;
    static final int PTR_SUPPORT = 24;
    static final int REG_IS_GLOBAL = 28;
    static final int FORCE_FLUSH = 32;
    static final int SPEED = 36;
    static final int PORT = 40;
    static final int LATENCY = 44;
    static final int MAX_COMMS = 48;
    static final int MAX_RECVS = 52;
    static final int NET_DEVICE_TYPE = 56;
    static final int NET_DEVICE_VERSION = 60;
    static final int VPROPS_NDEVS = 64;
    static final int VPROPS_DEVS = 68;
    static final int VPROPS_DEVS_MAX = 8;
    static final int MAX_P2P_BYTES = 104;
    static final int MAX_COLL_BYTES = 112;
    static final int MAX_MULTI_REQUEST_SIZE = 120;
    static final int RAIL_ID = 124;
    static final int PLANE_ID = 126;
    /** {@code NCCL_NET_ID_UNDEF}. */
    static final short ID_UNDEF = -1;
    /**
     * The largest message through the C door: {@code test} and {@code iflush} carry sizes as {@code
     * int} in every version of the table.
     */
    static final long MAX_BYTES = Integer.MAX_VALUE;

    private PropertiesV12() {
    }

    /** A C string that lives as long as the process; NULL for an empty one. */
    static long cString(String s) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        MemorySegment segment = Arena.global().allocateFrom(s);
        return segment.address();
    }

    /** Writes device {@code dev}'s properties at {@code address}, with its strings already in C. */
    static void write(long address, int dev, DeviceProperties p, long name, long pciPath) {
        CMemory.putBytes(address, new byte[0], SIZE);
        CMemory.putLong(address + NAME, name);
        CMemory.putLong(address + PCI_PATH, pciPath);
        CMemory.putLong(address + GUID, p.guid());
        CMemory.putInt(address + PTR_SUPPORT, p.ptrSupport());
        CMemory.putInt(address + REG_IS_GLOBAL, p.regIsGlobal() ? 1 : 0);
        CMemory.putInt(address + FORCE_FLUSH, p.forceFlush() ? 1 : 0);
        CMemory.putInt(address + SPEED, p.speedMbps());
        CMemory.putInt(address + PORT, p.port());
        CMemory.putFloat(address + LATENCY, p.latencyUs());
        CMemory.putInt(address + MAX_COMMS, p.maxComms());
        CMemory.putInt(address + MAX_RECVS, p.maxRecvs());
        CMemory.putInt(address + NET_DEVICE_TYPE, p.netDeviceType());
        CMemory.putInt(address + NET_DEVICE_VERSION, p.netDeviceVersion());
        CMemory.putInt(address + VPROPS_NDEVS, 1);
        CMemory.putInt(address + VPROPS_DEVS, dev);
        CMemory.putLong(address + MAX_P2P_BYTES, Math.min(p.maxP2pBytes(), MAX_BYTES));
        CMemory.putLong(address + MAX_COLL_BYTES, Math.min(p.maxCollBytes(), MAX_BYTES));
        CMemory.putInt(address + MAX_MULTI_REQUEST_SIZE, 1);
        CMemory.putShort(address + RAIL_ID, ID_UNDEF);
        CMemory.putShort(address + PLANE_ID, ID_UNDEF);
    }
}
