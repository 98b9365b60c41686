package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemFaults;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A send whose post the provider refuses outright (an error, not EAGAIN) condemns its send
 * communicator: the failure reaches the application through the request, and nothing of the
 * send queue's own escapes, although the condemnation empties the queue while the send leaves it.
 */
@Timeout(60)
class SendPostFailureTest extends PeerFixture {

    @Test
    void anEagerMessageWhosePostFailsFailsItsSendAndNothingEscapes() throws Exception {
        connectPair();
        HostBuffer src = buffer();
        MrHandle mr = registered(a, src);
        SendRequest request;
        // Held, so that no step of the watchdog's posts a keepalive into the armed fault first.
        a.lock();
        try {
            provider.faults().failNextPosts(a.railSet.dataEndpoint(0), MemFaults.Ops.SENDS, 1, FiErrno.FI_EIO);
            request = send.isend(src.address, 100, 7, mr);
        } finally {
            a.unlock();
        }
        assertNotNull(request);
        RdmaException failure = failureOf(request);
        assertTrue(failure.getMessage().contains("did not go out"), failure.getMessage());
        for (int i = 0; i < 20; i++) {
            a.progress();
            b.progress();
        }
    }
}
