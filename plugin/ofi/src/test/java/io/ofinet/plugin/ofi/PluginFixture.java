package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.config.ConfigEnvironment;
import io.ofinet.config.ConfigException;
import io.ofinet.config.ConfigLoader;
import io.ofinet.config.RailLayout;
import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.fabric.testing.TestTime;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** What the NetPlugin API's tests share: two plugin instances ("hosts") on one in-memory network. */
abstract class PluginFixture {
    private static final String LAYOUT = "{\"devices\": [{\"name\": \"test\", \"dataRails\": ["
            + "{\"provider\": \"mem\", \"domain\": \"mem0\"}, {\"provider\": \"mem\", \"domain\": \"mem1\"}],"
            + " \"minStripeSize\": 4096, \"eagerMaxSize\": 4096, \"peerTimeoutMs\": 500}]}";

    private final List<AutoCloseable> buffers = new ArrayList<>();
    /** The in-memory network of {@link #a} and {@link #b}. */
    MemProvider provider;
    OfiNetPlugin a;
    OfiNetPlugin b;

    static RailLayout layout() throws ConfigException {
        return layout("");
    }

    /** The layout with {@code extraMembers} (", \"name\": value" ...) added to its device. */
    static RailLayout layout(String extraMembers) throws ConfigException {
        return ConfigLoader.parse(LAYOUT.replace("}]}", extraMembers + "}]}"), "test",
                ConfigEnvironment.of(Map.of(), new Properties()));
    }

    @BeforeEach
    void init() throws Exception {
        provider = MemProvider.builder().domains(2).build();
        a = new OfiNetPlugin(() -> provider, PluginFixture::layout);
        b = new OfiNetPlugin(() -> provider, PluginFixture::layout);
        a.init();
        b.init();
    }

    @AfterEach
    void close() throws Exception {
        a.close();
        b.close();
        for (AutoCloseable buffer : buffers) {
            buffer.close();
        }
    }

    HostBuffer buffer(long size) {
        HostBuffer buffer = new HostBuffer(size);
        buffers.add(buffer);
        return buffer;
    }

    /** A connected pair: a's send communicator and b's receive communicator. */
    record Pair(Handles.SendComm send, Handles.RecvComm recv) {
    }

    /** b's listen communicator on device 0, and the pair connected through it: set by {@link #connectPair}. */
    Handles.ListenComm listen;
    Handles.SendComm send;
    Handles.RecvComm recv;

    /** b listens on device 0 and a connects to it: sets {@link #listen}, {@link #send} and {@link #recv}. */
    void connectPair() throws NetException {
        listen = b.listen(0);
        Pair pair = connect(listen);
        send = pair.send();
        recv = pair.recv();
    }

    /** Connects a to b's {@code listen}: connect and accept, each called again until both return their communicator. */
    Pair connect(Handles.ListenComm listen) throws NetException {
        Handles.SendComm send = null;
        Handles.RecvComm recv = null;
        for (long end = deadline(); (send == null || recv == null) && System.nanoTime() - end < 0; ) {
            if (send == null) {
                send = a.connect(0, listen.handle(), ConnectConfig.DEFAULT);
            }
            if (recv == null) {
                recv = b.accept(listen);
            }
        }
        assertTrue(send != null && recv != null, "connect or accept did not return a communicator");
        return new Pair(send, recv);
    }

    /**
     * A listen communicator of b's that a connect from {@code connector} began on, which returned
     * "call again". The watchdog may step b between the CONNECT and the call's look at its answer
     * (rarely): a connect that returned its connection at once is closed, and begun again on a new
     * listen communicator.
     */
    Handles.ListenComm listenWithConnectUnderWay(NetPlugin connector) throws NetException {
        for (int attempt = 0; attempt < 5; attempt++) {
            Handles.ListenComm listen = b.listen(0);
            Handles.SendComm early = connector.connect(0, listen.handle(), ConnectConfig.DEFAULT);
            if (early == null) {
                return listen;
            }
            connector.closeSend(early);
            b.closeListen(listen);
        }
        throw new AssertionError("a connect that had not returned its connection at its first call, in 5 attempts");
    }

    /**
     * When a loop of calls gives up: bounded by time, not by a count of calls, which a fast machine
     * spends before the watchdog (every 200 ms) has stepped a side no call steps.
     */
    static long deadline() {
        return System.nanoTime() + TestTime.nanos(30_000);
    }

    /** Tests {@code request} on {@code plugin} until it is done; the peer is stepped by the watchdog alone. */
    static void await(NetPlugin plugin, Handles.Request request, long[] sizes) throws NetException {
        for (long end = deadline(); System.nanoTime() - end < 0; ) {
            if (plugin.test(request, sizes)) {
                return;
            }
        }
        throw new AssertionError("request not done within " + TestTime.ms(30_000) + " ms");
    }

    /** Tests both requests alternately until both are done; returns the receive's first size. */
    long both(Handles.Request send, Handles.Request recv, long[] sizes) throws NetException {
        boolean sendDone = send == null;
        boolean recvDone = recv == null;
        for (long end = deadline(); !(sendDone && recvDone) && System.nanoTime() - end < 0; ) {
            sendDone = sendDone || a.test(send, null);
            recvDone = recvDone || b.test(recv, sizes);
        }
        assertTrue(sendDone && recvDone, "requests not done within " + TestTime.ms(30_000) + " ms");
        return sizes == null ? -1 : sizes[0];
    }
}
