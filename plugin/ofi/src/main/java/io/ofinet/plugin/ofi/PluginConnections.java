package io.ofinet.plugin.ofi;

import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.Device;
import io.ofinet.rdma.ListenComm;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The communicators' lives for {@link OfiNetPlugin}: listen, connect and accept on the calling
 * thread's endpoint, and the closes. A communicator's requests, and their use of memory handles,
 * end once the protocol's close has returned, so that memory counts as used until nothing can
 * touch it.
 */
final class PluginConnections {
    private final OfiNetPlugin plugin;
    private final PluginDevices devices;
    private final PluginChecks checks;
    /** Connects that returned "call again", and the endpoint each goes on on (or a mark: given up). */
    private final Map<PendingConnect, Begun> pendingConnects = new ConcurrentHashMap<>();

    /** A connect under way: its device and its handle's bytes. */
    private record PendingConnect(int dev, ByteBuffer handle) {
    }

    /**
     * Where a connect under way goes on: its endpoint, since {@code at} (System.nanoTime). Or, once
     * that endpoint closes as abandoned (its thread ended, and no call took the connection within
     * connectionTimeoutMs: {@link RdmaEndpoint#isAbandoned}), a mark without it (null) until {@code
     * at}, one more connectionTimeoutMs: a call with its handle then is refused, not begun again as a
     * second connection behind the first. Later its handle is a new one's (a listen id comes back
     * after 8,192 others). On an endpoint that stays open, the protocol closes a connect no call took
     * after twice connectionTimeoutMs (at its next slow duties) and refuses its handle for one more;
     * the plugin drops the entry after four times the timeout, later than both.
     */
    private record Begun(RdmaEndpoint endpoint, long at) {
        Begun(RdmaEndpoint endpoint) {
            this(endpoint, System.nanoTime());
        }

        boolean givenUp() {
            return endpoint == null || endpoint.isAbandoned();
        }

        /** Whether this entry may go at {@code now}: a mark past its time, or a connect the protocol has closed and forgotten. */
        boolean over(long now) {
            return endpoint == null ? now - at > 0
                    : now - at > 4 * endpoint.spec().parameters().connectionTimeoutMs() * 1_000_000L;
        }

        /** This connect, given up at {@code now}, as a mark. */
        Begun mark(long now) {
            return endpoint == null ? this
                    : new Begun(null, now + endpoint.spec().parameters().connectionTimeoutMs() * 1_000_000L);
        }
    }

    PluginConnections(OfiNetPlugin plugin, PluginDevices devices, PluginChecks checks) {
        this.plugin = plugin;
        this.devices = devices;
        this.checks = checks;
    }

    private static RdmaEndpoint endpoint(Device device) throws NetException {
        try {
            return device.endpointForCurrentThread();
        } catch (RdmaException e) {
            throw Errors.toNetException("open endpoint", e);
        }
    }

    Handles.ListenComm listen(Device device) throws NetException {
        try {
            return new OfiHandles.Listen(plugin.opening(), endpoint(device).listen());
        } catch (RdmaException e) {
            throw Errors.toNetException("listen", e);
        }
    }

    /**
     * Connects on the calling thread's endpoint; a connect called again with the same handle goes on
     * where it began, on whichever thread it is called again (the API's "call again" names no
     * thread): begun again on another thread's endpoint, it would make a second connection, and
     * accept would return the first, which nobody uses. Threads that call with the same handle at
     * once take turns: the first to find the connection made takes it, and the next begins another.
     */
    Handles.SendComm connect(int dev, byte[] handle) throws NetException {
        if (handle == null || handle.length > NetPlugin.HANDLE_MAX_BYTES) {
            throw new NetException(NetResult.INVALID_ARGUMENT, "connect: a handle of at most "
                    + NetPlugin.HANDLE_MAX_BYTES + " bytes is required");
        }
        PendingConnect key = new PendingConnect(dev, ByteBuffer.wrap(handle.clone()));
        prune(System.nanoTime());
        ConnectStep step = new ConnectStep();
        // Atomic per handle: apart, two threads could each find no connect under way, each begin
        // one, and the one whose entry was replaced would be left to the listener alone.
        pendingConnects.compute(key, (k, begun) -> step.take(begun, dev, handle));
        if (step.failure != null) {
            throw step.failure;
        }
        return step.comm == null ? null : new OfiHandles.Send(plugin.opening(), step.comm, step.endpoint);
    }

    /** Marks the connects given up by {@code now}, and drops the entries that are over ({@link Begun}). */
    private void prune(long now) {
        pendingConnects.values().removeIf(begun -> begun.over(now));
        pendingConnects.replaceAll((k, begun) -> begun.givenUp() ? begun.mark(now) : begun);
    }

    /** One call of {@link #connect}: what it returned, or why it failed. */
    private final class ConnectStep {
        SendComm comm;
        RdmaEndpoint endpoint;
        NetException failure;

        /** Goes on with the connect {@code begun} (null: begins one); returns where to call again, or null. */
        Begun take(Begun begun, int dev, byte[] handle) {
            if (begun != null && begun.givenUp()) {
                failure = new NetException(NetResult.INVALID_USAGE, "connect: the connection this handle began was"
                        + " given up and closed: no call took it in time (connectionTimeoutMs); the handle is refused"
                        + " for connectionTimeoutMs");
                return begun.mark(System.nanoTime());
            }
            try {
                endpoint = begun != null ? begun.endpoint() : endpoint(devices.device(dev));
                comm = endpoint.connect(handle);
                return comm != null ? null : begun != null ? begun : new Begun(endpoint);
            } catch (NetException e) {
                failure = e;
            } catch (RdmaException e) {
                failure = Errors.toNetException("connect", e);
                if (begun != null && (begun.givenUp() || e.category() == ErrorCategory.INVALID_USAGE)) {
                    // Given up between the look above and the call, or by the protocol on an endpoint that
                    // stays open: marked, so that a call from another thread is refused too.
                    return begun.mark(System.nanoTime());
                }
            }
            return null;
        }
    }

    /**
     * The connects on device {@code dev} that returned "call again" and no call has finished yet,
     * with the marks of those given up (a gauge, for the device's statistics).
     */
    int connectsUnderWay(int dev) {
        prune(System.nanoTime());
        int n = 0;
        for (PendingConnect key : pendingConnects.keySet()) {
            n += key.dev() == dev ? 1 : 0;
        }
        return n;
    }

    /** The plugin closes its devices: connects under way end with them. */
    void forgetPendingConnects() {
        pendingConnects.clear();
    }

    Handles.RecvComm accept(Handles.ListenComm listenComm) throws NetException {
        OfiHandles.Listen listen = checks.ours(listenComm, OfiHandles.Listen.class, "accept", "listen communicator");
        if (listen.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "accept: the listen communicator is closed");
        }
        ListenComm inner = listen.inner;
        try {
            RecvComm comm = inner.endpoint().accept(inner);
            return comm == null ? null : new OfiHandles.Recv(plugin.opening(), comm, inner.endpoint());
        } catch (RdmaException e) {
            throw Errors.toNetException("accept", e);
        }
    }

    void closeSend(Handles.SendComm comm) throws NetException {
        OfiHandles.Send send = checks.ours(comm, OfiHandles.Send.class, "closeSend", "send communicator");
        close(send, "closeSend", send.inner::close);
    }

    void closeRecv(Handles.RecvComm comm) throws NetException {
        OfiHandles.Recv recv = checks.ours(comm, OfiHandles.Recv.class, "closeRecv", "receive communicator");
        close(recv, "closeRecv", recv.inner::close);
    }

    /** The protocol's close of a send or receive communicator. */
    private interface ProtocolClose {
        void close() throws RdmaException;
    }

    /** Closes {@code c} once: refused from then on, its requests released when the protocol's close returned. */
    private static void close(OfiHandles.Comm c, String operation, ProtocolClose inner) throws NetException {
        if (c.closed) {
            throw new NetException(NetResult.INVALID_USAGE, operation + ": the communicator is closed already");
        }
        c.closed = true;
        try {
            inner.close();
        } catch (RdmaException e) {
            throw Errors.toNetException(operation, e);
        } finally {
            c.releaseAll();
        }
    }

    void closeListen(Handles.ListenComm comm) throws NetException {
        OfiHandles.Listen listen = checks.ours(comm, OfiHandles.Listen.class, "closeListen", "listen communicator");
        if (listen.closed) {
            throw new NetException(NetResult.INVALID_USAGE, "closeListen: the communicator is closed already");
        }
        listen.closed = true;
        listen.inner.close();
    }
}
