package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.HandshakeMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Handshake messages that come after their connection was made (late, or forged: a REJECT carries
 * no token) are dropped and counted; the connection they name goes on.
 */
@Timeout(60)
class StrayHandshakeTest extends PeerFixture {

    @Test
    void aRejectForAConnectedCommunicatorIsDroppedAndTheConnectionGoesOn() throws Exception {
        members = "\"peerTimeoutMs\": 5000";
        connectPair();
        byte[] reject = HandshakeMessage.reject(1, 1, 0, send.id(), "a stray refusal").encode();
        HostBuffer message = buffer(reject.length);
        a.commParts.memory().write(message.address, reject, 0, reject.length);
        long dropped = a.handshake.dropped;
        a.lock();
        try {
            a.handshake.onMessage(message.address, reject.length);
        } finally {
            a.unlock();
        }
        assertEquals(dropped + 1, a.handshake.dropped, "dropped and counted");
        assertTrue(send.connected(), "still connected");

        HostBuffer src = buffer(8192).pattern(5);
        HostBuffer dst = buffer(8192);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {8192}, new int[] {1},
                new MrHandle[] {registered(b, dst)});
        SendRequest s = send.isend(src.address, 8192, 1, registered(a, src));
        Await.done(r, null, "the message after the stray REJECT", a);
        Await.done(s, null, "its send", b);
        assertArrayEquals(src.bytes(0, 8192), dst.bytes(0, 8192));
    }
}
