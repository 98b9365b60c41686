package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.MemoryType;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Verified messages both ways over one send/receive communicator pair, a window in flight each way,
 * driven by {@link #step} without ever blocking: sizes and contents come from {@link Payloads}'
 * seeded functions, so each side knows what the other sends. Used by peer programs that drive
 * several streams from one thread.
 */
final class MessageStream {
    private static final int WINDOW = 4;

    private final NetPlugin p;
    private final Handles.SendComm send;
    private final Handles.RecvComm recv;
    private final int maxBytes;
    /** Whether this side sends; a side that only receives just waits on its receives. */
    private final boolean sending;
    private final long sendSeed;
    private final long recvSeed;
    private final ByteBuffer buf;
    private final long base;
    private final Handles.MrHandle mr;
    private final Handles.Request[] sends = new Handles.Request[WINDOW];
    private final Handles.Request[] recvs = new Handles.Request[WINDOW];
    private final long[] sizes = new long[1];
    private long posted;
    private long sent;
    private long recvPosted;
    private long received;
    /** When the latest verified message arrived (System.nanoTime). */
    long lastReceivedNanos;

    MessageStream(NetPlugin p, Handles.SendComm send, Handles.RecvComm recv, int maxBytes, String me, String peer)
            throws NetException {
        this(p, send, recv, maxBytes, me, peer, true);
    }

    /** @param sending false for a side that only waits on its receives (the other side then sends nothing either) */
    MessageStream(NetPlugin p, Handles.SendComm send, Handles.RecvComm recv, int maxBytes, String me, String peer,
            boolean sending) throws NetException {
        this.p = p;
        this.sending = sending;
        this.send = send;
        this.recv = recv;
        this.maxBytes = maxBytes;
        this.sendSeed = Payloads.seed(me + ">" + peer, 0, 0);
        this.recvSeed = Payloads.seed(peer + ">" + me, 0, 0);
        this.buf = ByteBuffer.allocateDirect(2 * WINDOW * maxBytes).order(ByteOrder.nativeOrder());
        this.base = NativeMemory.addressOf(buf);
        this.mr = p.regMr(send, base, buf.capacity(), MemoryType.HOST);
    }

    private int size(long seed, long k) {
        return Math.min(Payloads.size(seed, k), maxBytes);
    }

    /**
     * Posts what the windows allow and tests the oldest request each way.
     *
     * @return messages received and verified in this step
     * @throws NetException what the plugin reported; AssertionError for wrong data
     */
    int step() throws NetException {
        while (sending && posted - sent < WINDOW) {
            int slot = (int) (posted % WINDOW);
            int size = size(sendSeed, posted);
            Payloads.fill(buf, slot * maxBytes, sendSeed, posted, size);
            Handles.Request r = p.isend(send, base + (long) slot * maxBytes, size, 5, mr);
            if (r == null) {
                break;
            }
            sends[slot] = r;
            posted++;
        }
        while (recvPosted - received < WINDOW) {
            int slot = (int) (recvPosted % WINDOW);
            Handles.Request r = p.irecv(recv, 1, new long[] {base + (long) (WINDOW + slot) * maxBytes},
                    new long[] {maxBytes}, new int[] {5}, new Handles.MrHandle[] {mr});
            if (r == null) {
                break;
            }
            recvs[slot] = r;
            recvPosted++;
        }
        if (sent < posted && testOrSkip(sends[(int) (sent % WINDOW)], false)) {
            sent++;
        }
        if (received < recvPosted) {
            int slot = (int) (received % WINDOW);
            if (testOrSkip(recvs[slot], true)) {
                int expected = size(recvSeed, received);
                int wrong = Payloads.verify(buf, (WINDOW + slot) * maxBytes, recvSeed, received, expected);
                if (sizes[0] != expected || wrong >= 0) {
                    throw new AssertionError("message " + received + ": " + sizes[0] + " bytes reported, " + expected
                            + " sent; first wrong byte " + wrong);
                }
                received++;
                lastReceivedNanos = System.nanoTime();
                return 1;
            }
        }
        return 0;
    }

    /** Tests a request; one that fails is passed over (a failed request is done) and the failure thrown. */
    private boolean testOrSkip(Handles.Request r, boolean receive) throws NetException {
        try {
            return p.test(r, sizes);
        } catch (NetException e) {
            if (receive) {
                received++;
            } else {
                sent++;
            }
            throw e;
        }
    }

    /**
     * Tests every request posted and not yet reported done, each way.
     *
     * @return how many of them are still pending (neither done nor failed); every failure must be a
     *     REMOTE_ERROR
     * @throws AssertionError for a failure of another kind, or a request reported done
     */
    int pendingAfterFailure() {
        int pending = 0;
        for (long k = sent; k < posted; k++) {
            pending += stillPending(sends, (int) (k % WINDOW), "send " + k);
        }
        for (long k = received; k < recvPosted; k++) {
            pending += stillPending(recvs, (int) (k % WINDOW), "receive " + k);
        }
        return pending;
    }

    /** Tests {@code requests[slot]} unless it failed at an earlier call (then null: test returned it). */
    private int stillPending(Handles.Request[] requests, int slot, String what) {
        Handles.Request r = requests[slot];
        if (r == null) {
            return 0;
        }
        try {
            if (p.test(r, sizes)) {
                throw new AssertionError(what + " was reported done after its peer was condemned");
            }
            return 1;
        } catch (NetException e) {
            if (e.result() != io.ofinet.plugin.NetResult.REMOTE_ERROR) {
                throw new AssertionError(what + " failed with " + e.result() + ", not REMOTE_ERROR: " + e.getMessage());
            }
            requests[slot] = null;
            return 0;
        }
    }

    long received() {
        return received;
    }

    long sent() {
        return sent;
    }
}
