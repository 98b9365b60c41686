package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;

/**
 * What the tests of peers that fall silent or close share: endpoints of one in-memory provider with
 * a short {@code peerTimeoutMs}, a connected pair, registered buffers, and a receive posted on them.
 */
abstract class PeerFixture {
    static final String FAST = "\"peerTimeoutMs\": 300";
    /** The layout members of the endpoints {@link #endpoint} opens: {@link #FAST} unless a test sets others first. */
    String members = FAST;
    private final List<Device> devices = new ArrayList<>();
    private final Map<RdmaEndpoint, Device> deviceOf = new HashMap<>();
    private final List<AutoCloseable> buffers = new ArrayList<>();
    MemProvider provider;

    RdmaEndpoint endpoint() throws Exception {
        Device device = Device.open(provider, Layouts.mem(1, members));
        devices.add(device);
        RdmaEndpoint endpoint = device.openEndpoint();
        deviceOf.put(endpoint, device);
        return endpoint;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable b : buffers) {
            b.close();
        }
        for (Device d : devices) {
            d.close();
        }
    }

    MrHandle registered(RdmaEndpoint endpoint, HostBuffer buffer) throws Exception {
        MrHandle mr = deviceOf.get(endpoint).registrar().register(endpoint.rails(), buffer.address, buffer.size,
                Use.USER_BUFFER);
        buffers.add(0, mr::close);
        return mr;
    }

    HostBuffer buffer() {
        return buffer(4096);
    }

    /** A buffer of {@code size} bytes, freed after the test. */
    HostBuffer buffer(long size) {
        HostBuffer b = new HostBuffer(size);
        buffers.add(b);
        return b;
    }

    RecvRequest post(RecvComm recv, RdmaEndpoint endpoint) throws Exception {
        HostBuffer dst = buffer();
        return recv.irecv(1, new long[] {dst.address}, new long[] {4096}, new int[] {1},
                new MrHandle[] {registered(endpoint, dst)});
    }

    /** Two endpoints of one in-memory provider, {@code a} connected to {@code b}: set by {@link #connectPair}
     * (a test of more endpoints sets {@code a} and {@code b} itself).
     */
    RdmaEndpoint a;
    RdmaEndpoint b;
    SendComm send;
    RecvComm recv;

    /** Opens {@code a} and {@code b} on a new in-memory provider and connects a's {@code send} to b's {@code recv}. */
    void connectPair() throws Exception {
        provider = MemProvider.create();
        a = endpoint();
        b = endpoint();
        ConnectedPair comms = ConnectionTest.establish(a, b, b.listen());
        send = comms.send();
        recv = comms.recv();
    }

    /** Takes every operation of {@code endpoint}'s, so that none is free. */
    static List<RmaOp> takeAllOps(RdmaEndpoint endpoint) {
        List<RmaOp> taken = new ArrayList<>();
        endpoint.lock();
        try {
            for (RmaOp op = endpoint.pools.ops.acquire(); op != null; op = endpoint.pools.ops.acquire()) {
                taken.add(op);
            }
        } finally {
            endpoint.unlock();
        }
        return taken;
    }

    /** Gives back the operations {@link #takeAllOps} took. */
    static void giveBack(RdmaEndpoint endpoint, List<RmaOp> taken) {
        endpoint.lock();
        try {
            taken.forEach(endpoint.pools.ops::release);
        } finally {
            endpoint.unlock();
        }
    }

    /** Tests {@code request} until it fails, and returns the failure. */
    static RdmaException failureOf(Request request) {
        return assertThrows(RdmaException.class, () -> {
            while (!request.test(null)) {
                Thread.onSpinWait();
            }
        });
    }
}
