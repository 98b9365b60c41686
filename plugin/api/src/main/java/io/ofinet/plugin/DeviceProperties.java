package io.ofinet.plugin;

/**
 * A network device as NCCL describes one ({@code ncclNetProperties_v9_t}).
 *
 * @param name the device's name
 * @param pciPath the NIC's PCI path in sysfs, for topology detection; empty when unknown
 * @param guid a unique id of the NIC
 * @param ptrSupport the {@link MemoryType#bit() memory types} it can register
 * @param regIsGlobal whether a registration serves every communicator of the device (a cache)
 * @param forceFlush whether the framework must flush received data even for host memory
 * @param speedMbps the link speed in Mbps
 * @param port the port number
 * @param latencyUs the network latency in µs, 0 when unknown
 * @param maxComms communicators per device at most
 * @param maxRecvs buffers of one grouped receive at most
 * @param netDeviceType NCCL's device type: 0 host (no device-offloaded networking)
 * @param netDeviceVersion version of the device-offload interface, 0 for none
 * @param maxP2pBytes largest point-to-point message
 * @param maxCollBytes largest collective message
 */
public record DeviceProperties(String name, String pciPath, long guid, int ptrSupport, boolean regIsGlobal,
        boolean forceFlush, int speedMbps, int port, float latencyUs, int maxComms, int maxRecvs, int netDeviceType,
        int netDeviceVersion, long maxP2pBytes, long maxCollBytes) {
}
