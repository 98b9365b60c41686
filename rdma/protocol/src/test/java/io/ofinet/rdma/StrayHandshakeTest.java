package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ProcessIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Handshake answers that are not for the connect under way (late, or forged) are dropped and
 * counted; the connection they name goes on.
 */
@Timeout(60)
class StrayHandshakeTest extends PeerFixture {

    @Test
    void aRejectForAConnectedCommunicatorIsDroppedAndTheConnectionGoesOn() throws Exception {
        members = "\"peerTimeoutMs\": 5000";
        connectPair();
        long dropped = a.handshake.dropped;
        deliver(a, HandshakeMessage.reject(1, 1, 0, send.id(), send.token(), "a stray refusal"));
        assertEquals(dropped + 1, a.handshake.dropped, "dropped and counted");
        assertTrue(send.connected(), "still connected");
        assertAMessageMoves(1, "the message after the stray REJECT");
    }

    /**
     * While a connect waits for its answer, an ACCEPT naming its communicator id with another token
     * (a late answer to an earlier connect under that id, or forged: here with a third endpoint's
     * addresses) and such a REJECT are dropped and counted; the listener's own ACCEPT connects it.
     */
    @Test
    void anAnswerToAnotherConnectIsDroppedAndTheConnectGoesOn() throws Exception {
        members = "\"peerTimeoutMs\": 5000";
        provider = io.ofinet.fabric.mem.MemProvider.create();
        a = endpoint();
        b = endpoint();
        RdmaEndpoint third = endpoint();
        ListenComm listen = b.listen();
        SendComm connecting = null;
        b.lock(); // neither a call nor the watchdog steps b until the stray answers are in
        try {
            assertNull(a.connect(listen.handle()), "b has not answered: it has not run");
            for (int id = 0; id < Limits.MAX_COMMS && connecting == null; id++) {
                connecting = a.comms.send(id);
            }
            assertNotNull(connecting);
            int other = connecting.token() + 1;
            long dropped = a.handshake.dropped;
            deliver(a, HandshakeMessage.accept(1, 1, listen.id(), connecting.id(), 0,
                    third.commParts.rails().names(0, 1), third.commParts.rails().names(1, 1), ProcessIdentity.NONE, 7,
                    other, a.handshake.eagerMaxSize(), a.handshake.writesNoticedAbove()));
            deliver(a, HandshakeMessage.reject(1, 1, listen.id(), connecting.id(), other, "a forged refusal"));
            assertEquals(dropped + 2, a.handshake.dropped, "both dropped and counted");
            assertNull(connecting.connection(), "still connecting");
        } finally {
            b.unlock();
        }

        ConnectedPair pair = ConnectionTest.establish(a, b, listen);
        assertSame(connecting, pair.send(), "the connect that was under way");
        send = pair.send();
        recv = pair.recv();
        assertAMessageMoves(2, "the message to the listener that answered");
    }

    /** 8 KiB with {@code tag} from a's send communicator to b's receive communicator, verified. */
    private void assertAMessageMoves(int tag, String what) throws Exception {
        HostBuffer src = buffer(8192).pattern(4 + tag);
        HostBuffer dst = buffer(8192);
        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {8192}, new int[] {tag},
                new MrHandle[] {registered(b, dst)});
        SendRequest s = send.isend(src.address, 8192, tag, registered(a, src));
        Await.done(r, null, what, a);
        Await.done(s, null, "its send", b);
        assertArrayEquals(src.bytes(0, 8192), dst.bytes(0, 8192));
    }

    /** Hands {@code endpoint} handshake message {@code m} as if it had arrived on its first control rail. */
    private void deliver(RdmaEndpoint endpoint, HandshakeMessage m) {
        byte[] bytes = m.encode();
        HostBuffer message = buffer(bytes.length);
        endpoint.commParts.memory().write(message.address, bytes, 0, bytes.length);
        endpoint.lock();
        try {
            endpoint.handshake.onMessage(message.address, bytes.length);
        } finally {
            endpoint.unlock();
        }
    }
}
