package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertNull;

import io.ofinet.fabric.mem.MemProvider;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Closed communicators are released: nothing of the endpoint, its duties or its peers' records keeps
 * them reachable (a framework opens and closes communicators all day; NCCL does).
 */
class CommLifetimeTest extends TwoHostFixture {

    @Test
    void closedCommunicatorsBecomeUnreachable() throws Exception {
        openAndConnect(MemProvider.builder().domains(1).build(), Layouts.mem(1, ""));
        List<WeakReference<Object>> closed = new ArrayList<>();
        for (int lifetime = 0; lifetime < 20; lifetime++) {
            ListenComm listen = b.listen();
            Object[] pair = ConnectionTest.establish(a, b, listen);
            SendComm send = (SendComm) pair[0];
            RecvComm recv = (RecvComm) pair[1];
            transfer(send, recv, 4096, 4096, lifetime);
            send.close();
            recv.close();
            listen.close();
            spin(10);
            closed.add(new WeakReference<>(send));
            closed.add(new WeakReference<>(recv));
            closed.add(new WeakReference<>(listen));
        }
        for (int i = 0; i < 10 && closed.stream().anyMatch(r -> r.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        for (WeakReference<Object> r : closed) {
            assertNull(r.get(), "a closed communicator is still reachable");
        }
    }
}
