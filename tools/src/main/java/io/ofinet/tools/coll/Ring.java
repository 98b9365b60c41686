package io.ofinet.tools.coll;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A rank connected in a ring: a send communicator to the next rank and a receive communicator
 * from the previous one, on one device of a {@link NetPlugin}, and the step every ring algorithm
 * is made of: receive a block from the previous rank while sending one to the next.
 */
public final class Ring implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /**
     * The tags a ring gives its messages cycle through this many values. Sends meet receives by
     * tag and by their order within it (docs/PROTOCOL.md, "Matching by tag"), so a tag may repeat;
     * a new tag per message would make each communicator keep a count for every tag it ever saw.
     */
    static final int TAGS = 1 << 10;

    private final NetPlugin net;
    private final int rank;
    private final int size;
    private final Handles.ListenComm listen;
    private final Handles.SendComm send;
    private final Handles.RecvComm recv;
    private final Backoff backoff = new Backoff();
    private int tag;

    public Ring(NetPlugin net, Rendezvous rendezvous, int device) throws NetException, IOException, InterruptedException {
        if (rendezvous.size() < 2) {
            throw new IllegalArgumentException("a ring needs two ranks at least");
        }
        this.net = net;
        this.rank = rendezvous.rank();
        this.size = rendezvous.size();
        this.listen = net.listen(device);
        rendezvous.publish("handle", listen.handle());
        byte[] next = rendezvous.fetch((rank + 1) % size, "handle", TIMEOUT);
        Handles.SendComm s = null;
        Handles.RecvComm r = null;
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (s == null || r == null) {
            if (s == null) {
                s = net.connect(device, next, ConnectConfig.DEFAULT);
            }
            if (r == null) {
                r = net.accept(listen);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("rank " + rank + ": the ring did not connect within " + TIMEOUT);
            }
            backoff.idle();
        }
        this.send = s;
        this.recv = r;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public int next() {
        return (rank + 1) % size;
    }

    /** Registers a direct buffer for both of this rank's communicators (they share an endpoint). */
    public Handles.MrHandle register(ByteBuffer buffer) throws NetException {
        return net.regMr(send, buffer.duplicate().clear());
    }

    public void deregister(Handles.MrHandle mr) throws NetException {
        net.deregMr(send, mr);
    }

    /**
     * One step: receive {@code in} (its remaining bytes) from the previous rank while sending
     * {@code out} to the next; either may be null (first and last ranks of a chain).
     */
    public void step(ByteBuffer out, ByteBuffer in, Handles.MrHandle mr) throws NetException {
        step(out, in, mr, tag++);
    }

    /** A tag for a message that travels further than one step (a broadcast's). */
    public int nextTag() {
        return tag++;
    }

    /** The first of {@code count} consecutive tags, for a collective that posts many messages at once. */
    int reserveTags(int count) {
        int first = tag;
        tag += count;
        return first;
    }

    /** Posts a send of {@code out}'s remaining bytes to the next rank, or returns null: retry later. */
    Handles.Request isend(ByteBuffer out, int t, Handles.MrHandle mr) throws NetException {
        return net.isend(send, out, t & (TAGS - 1), mr);
    }

    /** Posts a receive into {@code in}'s remaining bytes from the previous rank, or returns null: retry later. */
    Handles.Request irecv(ByteBuffer in, int t, Handles.MrHandle mr) throws NetException {
        return net.irecv(recv, in, t & (TAGS - 1), mr);
    }

    /** Whether {@code request} is done (after one step of progress). */
    boolean test(Handles.Request request) throws NetException {
        return net.test(request, null);
    }

    Backoff backoff() {
        return backoff;
    }

    /** {@link #step(ByteBuffer, ByteBuffer, Handles.MrHandle)} with an explicit tag. */
    public void step(ByteBuffer out, ByteBuffer in, Handles.MrHandle mr, int t) throws NetException {
        Handles.Request r = in == null ? null : postReceive(in, t, mr);
        Handles.Request s = out == null ? null : postSend(out, t, mr);
        await(s, r);
    }

    /**
     * {@code count} round trips with the other rank of two: this rank sends {@code out} and receives
     * into {@code in}, sending first when {@code first}. Each receive is posted before the send ahead
     * of it, as {@code fi_pingpong} posts its receives, so an announced receive is announced before
     * the message it waits for is sent.
     */
    public void pingpong(ByteBuffer out, ByteBuffer in, Handles.MrHandle mr, int count, boolean first)
            throws NetException {
        if (count <= 0) {
            return;
        }
        int t = reserveTags(2 * count);
        Handles.Request r = postReceive(in, first ? t + 1 : t, mr);
        for (int i = 0; i < count; i++) {
            boolean more = i + 1 < count;
            if (first) {
                await(postSend(out, t + 2 * i, mr), r);
                r = more ? postReceive(in, t + 2 * i + 3, mr) : null;
            } else {
                await(r, null);
                r = more ? postReceive(in, t + 2 * i + 2, mr) : null;
                await(postSend(out, t + 2 * i + 1, mr), null);
            }
        }
    }

    private Handles.Request postReceive(ByteBuffer in, int t, Handles.MrHandle mr) throws NetException {
        Handles.Request r;
        backoff.reset();
        while ((r = net.irecv(recv, in, t & (TAGS - 1), mr)) == null) {
            backoff.idle();
        }
        return r;
    }

    private Handles.Request postSend(ByteBuffer out, int t, Handles.MrHandle mr) throws NetException {
        Handles.Request s;
        backoff.reset();
        while ((s = net.isend(send, out, t & (TAGS - 1), mr)) == null) {
            backoff.idle();
        }
        return s;
    }

    /** Waits for {@code a} and {@code b} (null: nothing to wait for). */
    private void await(Handles.Request a, Handles.Request b) throws NetException {
        boolean aDone = a == null;
        boolean bDone = b == null;
        backoff.reset();
        while (!aDone || !bDone) {
            boolean progressed = false;
            if (!aDone && net.test(a, null)) {
                aDone = true;
                progressed = true;
            }
            if (!bDone && net.test(b, null)) {
                bDone = true;
                progressed = true;
            }
            if (progressed) {
                backoff.reset();
            } else {
                backoff.idle();
            }
        }
    }

    /**
     * Streams {@code count} messages of {@code buffer} to the next rank ({@code sending}) or from the
     * previous one, {@code window} outstanding at a time, and waits for all of them.
     */
    public void stream(ByteBuffer buffer, Handles.MrHandle mr, int count, int window, boolean sending)
            throws NetException {
        Handles.Request[] requests = new Handles.Request[window];
        int posted = 0;
        int done = 0;
        int first = tag;
        tag += count;
        backoff.reset();
        while (done < count) {
            boolean progressed = false;
            for (int i = 0; i < window; i++) {
                if (requests[i] == null && posted < count) {
                    Handles.Request r = sending ? isend(buffer.duplicate(), first + posted, mr)
                            : irecv(buffer.duplicate(), first + posted, mr);
                    if (r != null) {
                        requests[i] = r;
                        posted++;
                        progressed = true;
                    }
                }
                if (requests[i] != null && net.test(requests[i], null)) {
                    requests[i] = null;
                    done++;
                    progressed = true;
                }
            }
            if (progressed) {
                backoff.reset();
            } else {
                backoff.idle();
            }
        }
    }

    /**
     * Moves {@code count} messages of {@code buffer} between the two ranks of a ring of two in
     * windows drained in order, as a framework that posts a batch and waits for it does (and NCCL's
     * proxy, which tests its oldest request first): the sender ({@code sending}) posts {@code window}
     * sends (the last window fewer when {@code count} is not a multiple), then tests the oldest
     * until it is done, then the next; the receiver posts as many receives and drains them the same
     * way. The receiver then sends a 1-byte acknowledgement from {@code ack} (its first byte), which
     * the sender receives into {@code ack} before its next window, so that windows do not overlap;
     * the sender posts that receive before its window's sends, as {@link #pingpong} posts its
     * receives ahead of the messages they wait for.
     */
    public void drain(ByteBuffer buffer, ByteBuffer ack, Handles.MrHandle mr, int count, int window, boolean sending)
            throws NetException {
        ByteBuffer oneByte = ack.duplicate().limit(ack.position() + 1);
        Handles.Request[] requests = new Handles.Request[window];
        for (int done = 0; done < count; ) {
            int n = Math.min(window, count - done);
            // The window's tags, then the acknowledgement's.
            int first = reserveTags(n + 1);
            Handles.Request acknowledged = sending ? postReceive(oneByte.duplicate(), first + n, mr) : null;
            for (int i = 0; i < n; i++) {
                requests[i] = sending ? postSend(buffer.duplicate(), first + i, mr)
                        : postReceive(buffer.duplicate(), first + i, mr);
            }
            for (int i = 0; i < n; i++) {
                await(requests[i], null);
                requests[i] = null;
            }
            if (sending) {
                await(acknowledged, null);
            } else {
                await(postSend(oneByte.duplicate(), first + n, mr), null);
            }
            done += n;
        }
    }

    @Override
    public void close() throws NetException {
        net.closeSend(send);
        net.closeRecv(recv);
        net.closeListen(listen);
    }
}
