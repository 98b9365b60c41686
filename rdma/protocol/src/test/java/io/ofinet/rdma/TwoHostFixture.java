package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
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
    ConnectedPair openAndConnect(MemProvider memProvider, DeviceSpec spec) throws Exception {
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

    /**
     * Posts on {@code recv} a grouped receive into {@code dst}, each buffer {@code size} bytes and
     * registered on {@code b}, buffer i with {@code tags[i]}.
     */
    RecvRequest irecvGroup(RecvComm recv, HostBuffer[] dst, long size, int... tags) throws Exception {
        MrHandle[] mrs = new MrHandle[dst.length];
        long[] addresses = new long[dst.length];
        long[] sizes = new long[dst.length];
        for (int i = 0; i < dst.length; i++) {
            mrs[i] = register(b, deviceB, dst[i]);
            addresses[i] = dst[i].address;
            sizes[i] = size;
        }
        return recv.irecv(dst.length, addresses, sizes, tags, mrs);
    }

    /** Bytes past each receive buffer of {@link #transfer} that must stay untouched. */
    static final int CANARY = 64;

    /**
     * Sends {@code sendSize} bytes over {@code send} into a {@code recvSize}-byte buffer of {@code
     * recv} followed by canary bytes, and checks the size, the payload and the canary.
     */
    void transfer(SendComm send, RecvComm recv, long sendSize, long recvSize, int tag) throws Exception {
        HostBuffer src = buffer(sendSize).pattern((int) (sendSize * 7 + tag));
        HostBuffer dst = buffer(recvSize + CANARY).fill((byte) 0x5A);
        MrHandle srcMr = register(a, deviceA, src);
        MrHandle dstMr = register(b, deviceB, dst);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {recvSize}, new int[] {tag},
                new MrHandle[] {dstMr});
        assertNotNull(r);
        SendRequest s = send.isend(src.address, sendSize, tag, srcMr);
        assertNotNull(s);
        long[] sizes = new long[1];
        await(s, null);
        await(r, sizes);
        assertEquals(sendSize, sizes[0], "received size");
        if (sendSize > 0) {
            assertArrayEquals(src.bytes(0, (int) sendSize), dst.bytes(0, (int) sendSize), "payload of " + sendSize);
        }
        for (long i = recvSize; i < recvSize + CANARY; i++) {
            assertEquals(0x5A, dst.get(i), "canary byte " + i + " past the receive buffer");
        }
    }

    /** Drives both sides until the request is done; its failure is thrown. */
    boolean await(Request request, long[] sizes) throws Exception {
        Await.done(request, sizes, "the request", a, b);
        return true;
    }

    /**
     * Drives both sides until neither has a data-path operation out beyond {@code aOps} and {@code
     * bOps}, 5 s at most (scaled): a bound in time, since a busy machine's steps find less done.
     */
    void assertOpsReturn(int aOps, int bOps) throws Exception {
        long deadline = System.nanoTime() + TestTime.nanos(5_000);
        while ((a.pools.ops.inUse() > aOps || b.pools.ops.inUse() > bOps) && System.nanoTime() < deadline) {
            spin(1);
        }
        assertEquals(aOps, a.pools.ops.inUse(), "sender's operations out");
        assertEquals(bOps, b.pools.ops.inUse(), "receiver's operations out (a tagged receive left posted?)");
    }

    /** Takes {@code steps} progress steps on both sides. */
    void spin(int steps) throws Exception {
        for (int i = 0; i < steps; i++) {
            a.progress();
            b.progress();
        }
    }
}
