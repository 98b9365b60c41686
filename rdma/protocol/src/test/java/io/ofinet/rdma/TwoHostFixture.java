package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * Two hosts on the in-memory provider, one device and endpoint each ({@code a} sends, {@code b}
 * listens), with the buffers and registrations a test makes released after it, newest first.
 */
abstract class TwoHostFixture {
    private final List<AutoCloseable> resources = new ArrayList<>();
    MemProvider provider;
    Device deviceA;
    Device deviceB;
    RdmaEndpoint a;
    RdmaEndpoint b;

    /** Opens both hosts on {@code memProvider} with {@code spec}, connects a to b and returns the pair. */
    Object[] openAndConnect(MemProvider memProvider, DeviceSpec spec) throws Exception {
        provider = memProvider;
        deviceA = Device.open(provider, spec);
        deviceB = Device.open(provider, spec);
        a = deviceA.openEndpoint();
        b = deviceB.openEndpoint();
        return ConnectionTest.establish(a, b, b.listen());
    }

    @AfterEach
    void closeHosts() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        if (deviceA != null) {
            deviceA.close();
            deviceB.close();
        }
    }

    HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(Math.max(size, 1));
        resources.add(0, buffer);
        return buffer;
    }

    MrHandle register(RdmaEndpoint endpoint, Device device, HostBuffer buffer) throws Exception {
        MrHandle mr = device.registrar().register(endpoint.rails(), buffer.address, buffer.size, Use.USER_BUFFER);
        resources.add(mr::close);
        return mr;
    }

    /** Drives both sides until the request is done; its failure is thrown. */
    boolean await(Request request, long[] sizes) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!request.test(sizes)) {
            a.progress();
            b.progress();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("request not done within 20 s");
            }
        }
        return true;
    }

    /** Takes {@code steps} progress steps on both sides. */
    void spin(int steps) throws Exception {
        for (int i = 0; i < steps; i++) {
            a.progress();
            b.progress();
        }
    }
}
