package io.ofinet.rdma;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.time.Duration;
import java.util.HexFormat;

/**
 * The victim's or the honest peer's connections in a three-process test ({@link HostilePeer},
 * {@link ForgingPeer}): connected both ways to the other through the address exchange, under the
 * names {@code me} and {@code other}, posting one message each way at a time.
 */
final class LockStep {
    final RdmaEndpoint endpoint;
    final ListenComm listen;
    final SendComm send;
    final RecvComm recv;
    private final String me;
    private final String other;
    private long longestGap;
    private long last;

    private LockStep(RdmaEndpoint endpoint, ListenComm listen, SendComm send, RecvComm recv, String me, String other) {
        this.endpoint = endpoint;
        this.listen = listen;
        this.send = send;
        this.recv = recv;
        this.me = me;
        this.other = other;
    }

    /** Listens, publishes its handle as {@code me}, and connects to {@code other} and accepts it. */
    static LockStep connect(RdmaEndpoint endpoint, AddressExchange exchange, String me, String other) throws Exception {
        ListenComm listen = endpoint.listen();
        exchange.publish(me, HexFormat.of().formatHex(listen.handle()));
        byte[] handle = HexFormat.of().parseHex(exchange.awaitString(other, Duration.ofSeconds(60)));
        SendComm send = null;
        RecvComm recv = null;
        while (send == null || recv == null) {
            HostilePeer.check(me + " connecting");
            send = send != null ? send : endpoint.connect(handle);
            recv = recv != null ? recv : endpoint.accept(listen);
        }
        return new LockStep(endpoint, listen, send, recv, me, other);
    }

    /**
     * Message {@code i} each way: posts a receive of {@code size[0]} bytes at {@code recvAddress}
     * and a send of {@code length} bytes at {@code sendAddress}, and waits for both; the received
     * size is left in {@code size[0]}. False when it waited longer than {@code stallBound}
     * nanoseconds since the last completion; {@link #longestGap} keeps the longest wait.
     */
    boolean message(int i, long recvAddress, MrHandle recvMr, long sendAddress, long length, MrHandle sendMr,
            long[] size, long stallBound) throws RdmaException {
        if (i == 0) {
            last = System.nanoTime(); // the wait for the first message starts with it
        }
        RecvRequest r = receive(i, recvAddress, size[0], recvMr);
        SendRequest s = send(i, sendAddress, length, sendMr);
        boolean got = false;
        boolean sent = false;
        while (!got || !sent) {
            HostilePeer.check(me + " message " + i);
            got = got || r.test(size);
            sent = sent || s.test(null);
            long now = System.nanoTime();
            if (got || sent) {
                longestGap = Math.max(longestGap, now - last);
                last = now;
            } else if (now - last > stallBound) {
                System.out.println("FAILED: message " + i + " waited over " + stallBound / 1_000_000 + " ms, "
                        + (got ? "received" : "not received") + " and " + (sent ? "sent" : "not sent") + "; "
                        + endpoint.statistics().asMap());
                return false;
            }
        }
        return true;
    }

    /** The longest wait between completions of {@link #message}, in nanoseconds. */
    long longestGap() {
        return longestGap;
    }

    /** Posts receive {@code i} of one buffer of {@code size} bytes at {@code address}, tag 0. */
    private RecvRequest receive(int i, long address, long size, MrHandle mr) throws RdmaException {
        RecvRequest r = null;
        while (r == null) {
            HostilePeer.check(me + " posting receive " + i);
            r = recv.irecv(1, new long[] {address}, new long[] {size}, new int[] {0}, new MrHandle[] {mr});
        }
        return r;
    }

    /** Posts send {@code i} of {@code length} bytes at {@code address}, tag 0. */
    private SendRequest send(int i, long address, long length, MrHandle mr) throws RdmaException {
        SendRequest s = null;
        while (s == null) {
            HostilePeer.check(me + " posting send " + i);
            s = send.isend(address, length, 0, mr);
        }
        return s;
    }

    /**
     * Says it is done, progresses until the other is (for at most 10 s), and closes {@code first}
     * (its registrations), then its communicators and the endpoint.
     */
    void finish(AddressExchange exchange, AutoCloseable... first) throws Exception {
        exchange.publish(me + ".done", "1");
        long end = System.nanoTime() + 10_000_000_000L;
        while (!exchange.has(other + ".done") && System.nanoTime() < end) {
            endpoint.progress();
        }
        for (AutoCloseable c : first) {
            c.close();
        }
        send.close();
        recv.close();
        listen.close();
        endpoint.close();
    }
}
