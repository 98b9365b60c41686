package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ofinet.plugin.DeviceProperties;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The offsets Java writes at, against NCCL 2.30's {@code ncclNetProperties_v12_t} (facts from its net_v12.h). */
class PropertiesV12Test {
    /** NCCL's struct, member by member, with the C ABI's natural alignment. */
    private static final StructLayout NCCL = MemoryLayout.structLayout(
            ValueLayout.ADDRESS.withName("name"), ValueLayout.ADDRESS.withName("pciPath"),
            ValueLayout.JAVA_LONG.withName("guid"), ValueLayout.JAVA_INT.withName("ptrSupport"),
            ValueLayout.JAVA_INT.withName("regIsGlobal"), ValueLayout.JAVA_INT.withName("forceFlush"),
            ValueLayout.JAVA_INT.withName("speed"), ValueLayout.JAVA_INT.withName("port"),
            ValueLayout.JAVA_FLOAT.withName("latency"), ValueLayout.JAVA_INT.withName("maxComms"),
            ValueLayout.JAVA_INT.withName("maxRecvs"), ValueLayout.JAVA_INT.withName("netDeviceType"),
            ValueLayout.JAVA_INT.withName("netDeviceVersion"),
            MemoryLayout.structLayout(ValueLayout.JAVA_INT.withName("ndevs"),
                    MemoryLayout.sequenceLayout(8, ValueLayout.JAVA_INT).withName("devs")).withName("vProps"),
            MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("maxP2pBytes"), ValueLayout.JAVA_LONG.withName("maxCollBytes"),
            ValueLayout.JAVA_INT.withName("maxMultiRequestSize"), ValueLayout.JAVA_SHORT.withName("railId"),
            ValueLayout.JAVA_SHORT.withName("planeId"));

    private static long at(String member) {
        return NCCL.byteOffset(MemoryLayout.PathElement.groupElement(member));
    }

    @Test
    void offsetsAreNccls() {
        assertEquals(128, NCCL.byteSize());
        assertEquals(PropertiesV12.SIZE, NCCL.byteSize());
        assertEquals(at("name"), PropertiesV12.NAME);
        assertEquals(at("pciPath"), PropertiesV12.PCI_PATH);
        assertEquals(at("guid"), PropertiesV12.GUID);
        assertEquals(at("ptrSupport"), PropertiesV12.PTR_SUPPORT);
        assertEquals(at("regIsGlobal"), PropertiesV12.REG_IS_GLOBAL);
        assertEquals(at("forceFlush"), PropertiesV12.FORCE_FLUSH);
        assertEquals(at("speed"), PropertiesV12.SPEED);
        assertEquals(at("port"), PropertiesV12.PORT);
        assertEquals(at("latency"), PropertiesV12.LATENCY);
        assertEquals(at("maxComms"), PropertiesV12.MAX_COMMS);
        assertEquals(at("maxRecvs"), PropertiesV12.MAX_RECVS);
        assertEquals(at("netDeviceType"), PropertiesV12.NET_DEVICE_TYPE);
        assertEquals(at("netDeviceVersion"), PropertiesV12.NET_DEVICE_VERSION);
        assertEquals(at("vProps"), PropertiesV12.VPROPS_NDEVS);
        assertEquals(at("vProps") + 4, PropertiesV12.VPROPS_DEVS);
        assertEquals(at("maxP2pBytes"), PropertiesV12.MAX_P2P_BYTES);
        assertEquals(at("maxCollBytes"), PropertiesV12.MAX_COLL_BYTES);
        assertEquals(at("maxMultiRequestSize"), PropertiesV12.MAX_MULTI_REQUEST_SIZE);
        assertEquals(124, PropertiesV12.RAIL_ID);
        assertEquals(at("railId"), PropertiesV12.RAIL_ID);
        assertEquals(at("planeId"), PropertiesV12.PLANE_ID);
    }

    @Test
    void writesEveryFieldAndCapsSizesAtIntMax() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment props = arena.allocate(NCCL);
            props.fill((byte) 0x5A);
            DeviceProperties p = new DeviceProperties("lo", "", 7, 1, true, false, 100_000, 1, 0.5f, 8192, 8, 0, 0,
                    0xFFFFFFFFL, 0xFFFFFFFFL);
            PropertiesV12.write(props.address(), 3, p, 1234, 0);
            assertEquals(1234, props.get(ValueLayout.JAVA_LONG, at("name")));
            assertEquals(0, props.get(ValueLayout.JAVA_LONG, at("pciPath")));
            assertEquals(7, props.get(ValueLayout.JAVA_LONG, at("guid")));
            assertEquals(1, props.get(ValueLayout.JAVA_INT, at("regIsGlobal")));
            assertEquals(100_000, props.get(ValueLayout.JAVA_INT, at("speed")));
            assertEquals(0.5f, props.get(ValueLayout.JAVA_FLOAT, at("latency")));
            assertEquals(8, props.get(ValueLayout.JAVA_INT, at("maxRecvs")));
            assertEquals(1, props.get(ValueLayout.JAVA_INT, at("vProps")));
            assertEquals(3, props.get(ValueLayout.JAVA_INT, at("vProps") + 4));
            assertEquals(0, props.get(ValueLayout.JAVA_INT, at("vProps") + 8), "unused vProps devices are zero");
            assertEquals(Integer.MAX_VALUE, props.get(ValueLayout.JAVA_LONG, at("maxP2pBytes")));
            assertEquals(Integer.MAX_VALUE, props.get(ValueLayout.JAVA_LONG, at("maxCollBytes")));
            assertEquals(1, props.get(ValueLayout.JAVA_INT, at("maxMultiRequestSize")));
            assertEquals(-1, props.get(ValueLayout.JAVA_SHORT, at("railId")));
            assertEquals(-1, props.get(ValueLayout.JAVA_SHORT, at("planeId")));
        }
    }
}
