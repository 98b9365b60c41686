package io.ofinet.tools.coll;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.DeviceProperties;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetPlugin;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin API between threads of one process, for testing the collectives' logic: each rank's
 * view is one {@code LoopbackNet} on a shared {@link Wire}. Sends and receives on a connection match
 * in posting order, like the plugin's; a matched pair completes, and the data is copied, at the
 * first {@link #test} of either. The wire keeps a log of the posts and completions, in order.
 */
final class LoopbackNet implements NetPlugin {
    /** What the ranks share: the connections, their unmatched requests, and the log. */
    static final class Wire {
        private final Map<Integer, Integer> connectedTo = new HashMap<>();
        private final Map<Integer, ArrayDeque<Req>> sends = new HashMap<>();
        private final Map<Integer, ArrayDeque<Req>> recvs = new HashMap<>();
        private final List<String> log = new ArrayList<>();
        /** Bytes of each post, by its log entry. */
        private final Map<String, Integer> bytes = new HashMap<>();

        synchronized List<String> log() {
            return List.copyOf(log);
        }

        /** The bytes of the post logged as {@code entry} ("r0 isend 3"), or null. */
        synchronized Integer bytes(String entry) {
            return bytes.get(entry);
        }

        private synchronized void post(Req request) {
            ArrayDeque<Req> mine = queue(request.send ? sends : recvs, request.channel);
            ArrayDeque<Req> theirs = queue(request.send ? recvs : sends, request.channel);
            String entry = "r" + request.rank + (request.send ? " isend " : " irecv ") + request.tag;
            log.add(entry);
            bytes.put(entry, request.buffer.remaining());
            if (theirs.isEmpty()) {
                mine.add(request);
            } else {
                Req other = theirs.poll();
                request.peer = other;
                other.peer = request;
            }
        }

        private static ArrayDeque<Req> queue(Map<Integer, ArrayDeque<Req>> queues, int channel) {
            return queues.computeIfAbsent(channel, c -> new ArrayDeque<>());
        }

        private synchronized boolean test(Req request) {
            if (!request.done && request.peer != null) {
                Req send = request.send ? request : request.peer;
                Req recv = request.send ? request.peer : request;
                if (send.buffer.remaining() > recv.buffer.remaining()) {
                    throw new IllegalStateException(send.buffer.remaining() + " bytes sent into a receive of "
                            + recv.buffer.remaining());
                }
                recv.buffer.duplicate().put(send.buffer.duplicate());
                send.done = true;
                recv.done = true;
            }
            if (request.done && !request.reported) {
                request.reported = true;
                log.add("r" + request.rank + (request.send ? " send " : " recv ") + request.tag + " done");
            }
            return request.done;
        }
    }

    private static final class Req implements Handles.Request {
        final int rank;
        final int channel;
        final boolean send;
        final int tag;
        final ByteBuffer buffer;
        Req peer;
        boolean done;
        boolean reported;

        Req(int rank, int channel, boolean send, int tag, ByteBuffer buffer) {
            this.rank = rank;
            this.channel = channel;
            this.send = send;
            this.tag = tag;
            this.buffer = buffer;
        }
    }

    /** A connection from rank {@code from} to rank {@code to}; channel {@code from * 1000 + to}. */
    private record Conn(int from, int to) implements Handles.SendComm, Handles.RecvComm {
        int channel() {
            return from * 1000 + to;
        }
    }

    private record Listen(int rank) implements Handles.ListenComm {
        @Override
        public byte[] handle() {
            return new byte[] {(byte) rank};
        }
    }

    private enum Mr implements Handles.MrHandle { INSTANCE }

    private final Wire wire;
    private final int rank;

    LoopbackNet(Wire wire, int rank) {
        this.wire = wire;
        this.rank = rank;
    }

    @Override
    public Handles.ListenComm listen(int dev) {
        return new Listen(rank);
    }

    @Override
    public Handles.SendComm connect(int dev, byte[] handle, ConnectConfig config) {
        synchronized (wire) {
            wire.connectedTo.put((int) handle[0], rank);
        }
        return new Conn(rank, handle[0]);
    }

    @Override
    public Handles.RecvComm accept(Handles.ListenComm listenComm) {
        synchronized (wire) {
            Integer from = wire.connectedTo.get(rank);
            return from == null ? null : new Conn(from, rank);
        }
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, ByteBuffer buffer) {
        return Mr.INSTANCE;
    }

    @Override
    public void deregMr(Handles.Comm comm, Handles.MrHandle mhandle) {
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle) {
        Req request = new Req(rank, ((Conn) comm).channel(), true, tag, buffer.duplicate());
        wire.post(request);
        return request;
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, ByteBuffer buffer, int tag, Handles.MrHandle mhandle) {
        Req request = new Req(rank, ((Conn) comm).channel(), false, tag, buffer.duplicate());
        wire.post(request);
        return request;
    }

    @Override
    public boolean test(Handles.Request request, long[] sizes) {
        return wire.test((Req) request);
    }

    @Override
    public void closeSend(Handles.SendComm comm) {
    }

    @Override
    public void closeRecv(Handles.RecvComm comm) {
    }

    @Override
    public void closeListen(Handles.ListenComm comm) {
    }

    @Override
    public void close() {
    }

    // What the collectives do not use.

    @Override
    public String name() {
        return "loopback";
    }

    @Override
    public void init() {
    }

    @Override
    public int devices() {
        return 1;
    }

    @Override
    public DeviceProperties getProperties(int dev) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Handles.MrHandle regMr(Handles.Comm comm, long address, long size, MemoryType type) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Handles.MrHandle regMrDmaBuf(Handles.Comm comm, long address, long size, MemoryType type, long offset,
            int fd) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Handles.Request isend(Handles.SendComm comm, long address, long size, int tag, Handles.MrHandle mhandle) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Handles.Request irecv(Handles.RecvComm comm, int n, long[] addresses, long[] sizes, int[] tags,
            Handles.MrHandle[] mhandles) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Handles.Request iflush(Handles.RecvComm comm, int n, long[] addresses, long[] sizes,
            Handles.MrHandle[] mhandles) {
        throw new UnsupportedOperationException();
    }
}
