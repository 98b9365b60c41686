package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.FiErrno;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.rail.Peers;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Limits;
import io.ofinet.rdma.wire.ListenHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** listen / connect / accept between two hosts on the in-memory provider. */
@Timeout(30)
class ConnectionTest {
    private final List<Device> devices = new ArrayList<>();
    private MemProvider provider;

    private Device device(int rails, String extra) throws Exception {
        Device d = Device.open(provider, Layouts.mem(rails, extra));
        devices.add(d);
        return d;
    }

    @AfterEach
    void closeDevices() throws Exception {
        // Closing succeeds only if every registration, endpoint and queue was released in order.
        for (Device d : devices) {
            d.close();
            d.close();
        }
    }

    /** Two endpoints of one device, {@code a} connected to {@code b}: a send and a receive communicator. */
    record Loopback(RdmaEndpoint a, RdmaEndpoint b, SendComm send, RecvComm recv) {
        static Loopback open(Device device) throws Exception {
            RdmaEndpoint a = device.openEndpoint();
            RdmaEndpoint b = device.openEndpoint();
            ConnectedPair pair = establish(a, b, b.listen());
            return new Loopback(a, b, pair.send(), pair.recv());
        }
    }

    /** Drives both sides until connect and accept have both returned their communicator. */
    static ConnectedPair establish(RdmaEndpoint connector, RdmaEndpoint listener, ListenComm listen) throws Exception {
        SendComm send = null;
        RecvComm recv = null;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (send == null || recv == null) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no connection within 10 s");
            }
            if (send == null) {
                send = connector.connect(listen.handle());
            }
            if (recv == null) {
                recv = listener.accept(listen);
            }
        }
        return new ConnectedPair(send, recv);
    }

    /** Steps a connect that must fail until it does, within 10 s, and returns its failure. */
    private static RdmaException connectFailure(RdmaEndpoint connector, byte[] handle) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                assertNull(connector.connect(handle));
            } catch (RdmaException failure) {
                return failure;
            }
        }
        throw new AssertionError("the connect did not fail within 10 s");
    }

    @ParameterizedTest
    @CsvSource({"1, false", "2, false", "4, false", "1, true", "2, true", "4, true"})
    void connectAndAcceptWithEveryRailCountInBothScopes(int rails, boolean endpointMr) throws Exception {
        MemProvider.Builder b = MemProvider.builder().domains(rails);
        provider = endpointMr ? b.endpointMr().build() : b.build();
        RdmaEndpoint a = device(rails, "").openEndpoint();
        RdmaEndpoint bEp = device(rails, "").openEndpoint();
        ListenComm listen = bEp.listen();
        assertTrue(listen.handle().length <= 128);
        ConnectedPair pair = establish(a, bEp, listen);
        SendComm send = pair.send();
        RecvComm recv = pair.recv();
        assertEquals(recv.id(), send.connection().peerCommId());
        assertEquals(send.id(), recv.connection().peerCommId());
        assertEquals(rails, a.rails().dataRails());
        assertEquals(endpointMr, a.rails().anyEndpointScope());
        for (int r = 0; r < rails; r++) {
            assertTrue(send.connection().dataPeer(r) >= 0);
            assertTrue(recv.connection().dataPeer(r) >= 0);
        }
        send.close();
        send.close();
        recv.close();
        listen.close();
        a.close();
        bEp.close();
    }

    @Test
    void oneListenCommunicatorAcceptsManyConnections() throws Exception {
        provider = MemProvider.builder().domains(2).build();
        Device host = device(2, "");
        RdmaEndpoint listener = device(2, "").openEndpoint();
        ListenComm listen = listener.listen();
        List<Integer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ConnectedPair pair = establish(host.openEndpoint(), listener, listen);
            peers.add(pair.recv().connection().peerCommId());
        }
        assertEquals(3, peers.size());
        assertNull(listener.accept(listen), "no fourth connection");
    }

    @Test
    void connectionsThatAcceptHasNotReturnedAreBoundedPerListenCommunicator() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        Device host = device(1, "");
        RdmaEndpoint listener = device(1, "\"maxPendingConnections\": 2").openEndpoint();
        ListenComm listen = listener.listen();
        List<RdmaEndpoint> connectors = new ArrayList<>();
        List<SendComm> connected = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            RdmaEndpoint connector = host.openEndpoint();
            connectors.add(connector);
            SendComm send = null;
            for (long deadline = System.nanoTime() + 10_000_000_000L; send == null && System.nanoTime() < deadline; ) {
                send = connector.connect(listen.handle());
                listener.progress(); // accept() is not called: the connection waits in the listener
            }
            assertNotNull(send, "connection " + i);
            connected.add(send);
        }
        RdmaEndpoint third = host.openEndpoint();
        RdmaException refused = null;
        for (long deadline = System.nanoTime() + 10_000_000_000L; refused == null && System.nanoTime() < deadline; ) {
            try {
                assertNull(third.connect(listen.handle()));
                listener.progress();
            } catch (RdmaException e) {
                refused = e;
            }
        }
        assertNotNull(refused, "the third CONNECT was not refused");
        assertEquals(ErrorCategory.REMOTE, refused.category());
        assertTrue(refused.getMessage().contains("holds 2 connections that accept() has not returned"
                + " (maxPendingConnections 2)"), refused.getMessage());
        assertEquals(1, listener.statistics().refusedConnections());
        assertNotNull(listener.accept(listen));
        ConnectedPair pair = establish(host.openEndpoint(), listener, listen);
        assertNotNull(pair.recv(), "room again once accept() returned one");
    }

    /** Connects with {@code handle} until the listener's refusal arrives, and returns it. */
    private static RdmaException refusal(RdmaEndpoint connector, RdmaEndpoint listener, ListenComm listen,
            byte[] handle) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                assertNull(connector.connect(handle));
                assertNull(listener.accept(listen));
            } catch (RdmaException e) {
                return e;
            }
        }
        throw new AssertionError("no refusal within 5 s");
    }

    /** An eager message larger than the receiver's posted buffers would be cut short: refused at once. */
    @Test
    void eagerSizesThatDifferAreRefused() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint connector = device(1, "\"eagerMaxSize\": 4096").openEndpoint();
        RdmaEndpoint listener = device(1, "").openEndpoint();
        ListenComm listen = listener.listen();
        RdmaException refused = refusal(connector, listener, listen, listen.handle());
        assertEquals(ErrorCategory.REMOTE, refused.category());
        assertEquals("connect: the listener refused the connection: eager sizes differ: the listener takes eager"
                + " messages of up to 8192 bytes, the connector sends them up to 4096 (eagerMaxSize and"
                + " rdmaMinPostedEagerBuffers must agree; 0: off)", refused.getMessage());
    }

    /**
     * A listener drops a written segment its connector could not have sent (docs/PROTOCOL.md, "What a
     * peer can forge"), so both sides must announce writes alike: a connector that does not is refused.
     */
    @Test
    void writeNoticesThatDifferAreRefused() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint connector = device(1, "\"writeNotice\": \"immediate\"").openEndpoint();
        RdmaEndpoint listener = device(1, "\"writeNotice\": \"message\"").openEndpoint();
        ListenComm listen = listener.listen();
        RdmaException refused = refusal(connector, listener, listen, listen.handle());
        assertEquals(ErrorCategory.REMOTE, refused.category());
        assertEquals("connect: the listener refused the connection: writes are announced differently: the listener"
                + " takes a notice message after every write, the connector sends immediate data with every write"
                + " (writeNotice must agree)", refused.getMessage());
    }

    /**
     * Where announcements come as messages every control rail keeps its posted receives: the
     * endpoint's control buffers must hold them all and leave room for the handshake and the
     * announcements (3 rails at 1,400 posted each: more than the endpoint's first bound, 4,096; 2
     * at 2,100: every buffer of that bound posted, none left to send with).
     */
    @ParameterizedTest
    @CsvSource({"3, 1400", "2, 2100"})
    void controlBuffersPostedOnEveryControlRailLeaveRoomToConnect(int rails, int posted) throws Exception {
        provider = MemProvider.builder().domains(rails).build();
        String extra = "\"writeNotice\": \"message\", \"rdmaMinPostedControlBuffers\": " + posted
                + ", \"rdmaMaxPostedControlBuffers\": " + posted;
        RdmaEndpoint connector = device(rails, extra).openEndpoint();
        RdmaEndpoint listener = device(rails, extra).openEndpoint();
        ConnectedPair pair = establish(connector, listener, listener.listen());
        assertNotNull(pair.send());
        assertNotNull(pair.recv());
    }

    @Test
    void railCountsThatDifferAreRefusedOnBothSides() throws Exception {
        provider = MemProvider.builder().domains(2).build();
        RdmaEndpoint two = device(2, "").openEndpoint();
        RdmaEndpoint one = device(1, "").openEndpoint();
        ListenComm listen = one.listen();
        RdmaException local = assertThrows(RdmaException.class, () -> two.connect(listen.handle()));
        assertEquals(ErrorCategory.INVALID_USAGE, local.category());
        assertEquals("connect: rail counts differ: this endpoint has 2 data and 2 control rails, the listener 1 and 1",
                local.getMessage());
        // A handle claiming the connector's rail counts reaches the listener, which refuses.
        ListenHandle real = ListenHandle.decode(listen.handle());
        byte[] forged = new ListenHandle(2, 2, real.listenId(), real.address()).encode();
        RdmaException refused = refusal(two, one, listen, forged);
        assertEquals(ErrorCategory.REMOTE, refused.category());
        assertEquals("connect: the listener refused the connection: rail counts differ: the listener has 1 data"
                + " and 1 control rails, the connector 2 and 2", refused.getMessage());
        // The listener still serves well-formed peers.
        establish(device(1, "").openEndpoint(), one, listen);
    }

    @Test
    void aHandleWhoseAddressIsNotOfTheProvidersFormatIsAnInvalidArgumentAndTakesNothing() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaEndpoint b = device(1, "").openEndpoint();
        ListenComm listen = b.listen();
        ListenHandle real = ListenHandle.decode(listen.handle());
        byte[] cut = new ListenHandle(1, 1, real.listenId(), Arrays.copyOf(real.address(), 3)).encode();
        int entries = a.commParts.peers().entries();
        RdmaException e = assertThrows(RdmaException.class, () -> a.connect(cut));
        assertEquals(ErrorCategory.INVALID_ARGUMENT, e.category(), e.getMessage());
        assertEquals("connect: the handle's listener address is not one of this endpoint's control rail:"
                + " fi_av_insert (provider mem) failed: FI_EINVAL (an in-memory address of 3 bytes; they have 8)",
                e.getMessage());
        assertEquals(entries, a.commParts.peers().entries(), "no address inserted");
        establish(a, b, listen);
    }

    /**
     * A listener with every receive communicator id in use refuses a connect at once, and keeps
     * none of the connector's addresses: it took them into a connection it then dropped, told the
     * connector nothing (which waited out connectionTimeoutMs), and each such connect left the
     * connector's address entries with one more user, for good.
     */
    @Test
    void aListenerOutOfReceiveIdsRefusesTheConnectAndKeepsNoAddress() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaEndpoint b = device(1, "").openEndpoint();
        ListenComm listen = b.listen();
        int entries = b.commParts.peers().entries();
        b.lock();
        try {
            for (int i = 0; i < Limits.MAX_COMMS; i++) {
                b.comms.newRecvId();
            }
        } finally {
            b.unlock();
        }
        for (int round = 0; round < 3; round++) {
            RdmaException failure = null;
            long deadline = System.nanoTime() + TestTime.nanos(10_000);
            while (failure == null) {
                assertTrue(System.nanoTime() < deadline, "the connect was refused within 10 s");
                try {
                    assertNull(a.connect(listen.handle()));
                } catch (RdmaException e) {
                    failure = e;
                }
                b.progress();
            }
            assertTrue(failure.getMessage().contains("receive communicator ids"), failure.getMessage());
        }
        long deadline = System.nanoTime() + Peers.RETIRED_KEPT_NANOS + TestTime.nanos(10_000);
        while (b.commParts.peers().entries() != entries && System.nanoTime() < deadline) {
            a.progress();
            b.progress();
            Thread.sleep(1);
        }
        assertEquals(entries, b.commParts.peers().entries(), "the connector's addresses left the listener's vector");
    }

    @Test
    void aHandleThatDoesNotDecodeIsAnInvalidArgument() throws Exception {
        provider = MemProvider.create();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaException e = assertThrows(RdmaException.class, () -> a.connect(new byte[] {1, 2, 3}));
        assertEquals(ErrorCategory.INVALID_ARGUMENT, e.category());
        assertTrue(e.getMessage().startsWith("malformed listen handle"), e.getMessage());
    }

    @Test
    void aListenerThatNeverAnswersTimesOut() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint a = device(1, "\"connectionTimeoutMs\": 300").openEndpoint();
        RdmaEndpoint silent = device(1, "").openEndpoint();
        byte[] handle = silent.listen().handle();
        long start = System.nanoTime();
        RdmaException e;
        silent.lock(); // alive but paused: not even the watchdog drives it
        try {
            e = connectFailure(a, handle);
        } finally {
            silent.unlock();
        }
        assertTrue(System.nanoTime() - start >= 300_000_000L);
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertEquals("connect: the listener did not answer within 300 ms (connectionTimeoutMs)", e.getMessage());
    }

    @Test
    void aListenerThatVanishesFailsTheConnect() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaEndpoint b = device(1, "").openEndpoint();
        byte[] handle = b.listen().handle();
        provider.faults().vanish(b.railSet.controlEndpoint(0));
        RdmaException e = connectFailure(a, handle);
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().startsWith("connect: the connect message did not reach the listener"), e.getMessage());
        assertTrue(e.getMessage().contains("FI_EHOSTUNREACH"), e.getMessage());
    }

    @Test
    void aConnectorThatVanishesMidHandshakeFailsTheAccept() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaEndpoint b = device(1, "").openEndpoint();
        ListenComm listen = b.listen();
        b.lock(); // the watchdog's step of b would answer the CONNECT before the call looks for it
        try {
            assertNull(a.connect(listen.handle()));
        } finally {
            b.unlock();
        }
        provider.faults().vanish(a.railSet.controlEndpoint(0));
        RdmaException e = null;
        for (int i = 0; i < 1000 && e == null; i++) {
            try {
                assertNull(b.accept(listen));
            } catch (RdmaException failure) {
                e = failure;
            }
        }
        assertNotNull(e);
        assertEquals(ErrorCategory.REMOTE, e.category());
        assertTrue(e.getMessage().startsWith("accept: the connecting peer went away during the handshake"),
                e.getMessage());
        // The listener keeps serving others.
        establish(device(1, "").openEndpoint(), b, listen);
    }

    @Test
    void oversizedMessagesDoNotDeafenTheListener() throws Exception {
        provider = MemProvider.builder().domains(1).build();
        RdmaEndpoint a = device(1, "").openEndpoint();
        RdmaEndpoint b = device(1, "").openEndpoint();
        RdmaEndpoint hostile = device(1, "").openEndpoint();
        ListenComm listen = b.listen();
        // More oversized messages than b keeps receives posted: each fails one with FI_ETRUNC.
        long malformed = b.statistics().droppedMalformed();
        io.ofinet.fabric.Endpoint raw = hostile.railSet.controlEndpoint(0);
        long target = hostile.railSet.av(1).insert(b.railSet.controlEndpoint(0).name());
        try (io.ofinet.fabric.testing.HostBuffer big = new io.ofinet.fabric.testing.HostBuffer(2 * ControlRailBuffer.BYTES)) {
            io.ofinet.mr.MrHandle mr = hostile.registerUserBuffer(big.address, big.size);
            long desc = mr.descriptor(io.ofinet.mr.RailKind.CONTROL, 0);
            for (int i = 0; i < 100; i++) {
                while (raw.senddata(big.address, big.size, desc, 0, target, 0) != io.ofinet.fabric.Endpoint.POSTED) {
                    b.progress();
                }
                b.progress();
            }
            for (long end = System.nanoTime() + 10_000_000_000L; b.statistics().droppedMalformed() < malformed + 100
                    && System.nanoTime() < end; ) {
                b.progress();
            }
            mr.close();
        }
        assertEquals(malformed + 100, b.statistics().droppedMalformed(), "each truncated and dropped");
        establish(a, b, listen);
    }

    @Test
    void eagainStormsOnlyDelayTheHandshake() throws Exception {
        provider = MemProvider.builder().domains(2).build();
        RdmaEndpoint a = device(2, "").openEndpoint();
        RdmaEndpoint b = device(2, "").openEndpoint();
        ListenComm listen = b.listen();
        // Retries back off to one every 100 ms after the first second: 40 refusals each side fit in
        // establish's 10 s however slowly the first steps run (a cold JVM).
        provider.faults().failNextPosts(a.railSet.controlEndpoint(0), 40, FiErrno.FI_EAGAIN);
        provider.faults().failNextPosts(b.railSet.controlEndpoint(0), 40, FiErrno.FI_EAGAIN);
        ConnectedPair pair = establish(a, b, listen);
        assertEquals(pair.recv().id(), pair.send().connection().peerCommId());
    }
}
