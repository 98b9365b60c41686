package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One side of a two-JVM transfer over real libfabric: {@code TransferPeer send|recv DIR PROVIDER
 * DOMAIN0 DOMAIN1}. Two data rails (one per domain) and a control rail on each; stripes from 4 KiB,
 * so that large messages use both rails. The receiver checks every message byte for byte, and the
 * canary bytes past each receive buffer. Exit status 0 means all checks passed.
 */
public final class TransferPeer {
    static final long[] SIZES = {0, 1, 63, 64, 4095, 4096, 4097, 8192, 8193, 65536, 1 << 20, 8 << 20};
    private static final int CANARY = 64;

    private TransferPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        DeviceSpec spec = Layouts.device(args[2], new String[] {args[3], args[4]},
                "\"minStripeSize\": 4096, \"eagerMaxSize\": 4096, \"connectionTimeoutMs\": 30000");
        Duration wait = Duration.ofSeconds(60);
        long deadline = System.nanoTime() + wait.toNanos();
        boolean ok = true;
        try (Device device = Device.open(new OfiProvider(), spec)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            if (role.equals("recv")) {
                ListenComm listen = endpoint.listen();
                exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
                RecvComm recv = Connections.accept(endpoint, listen, deadline);
                long[] received = new long[1];
                for (int i = 0; i < SIZES.length; i++) {
                    long size = SIZES[i];
                    try (HostBuffer dst = new HostBuffer(size + CANARY).fill((byte) 0x5A);
                            HostBuffer expected = new HostBuffer(Math.max(1, size)).pattern(i)) {
                        MrHandle mr = device.registrar().register(endpoint.rails(), dst.address, dst.size, Use.USER_BUFFER);
                        RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {size}, new int[] {i},
                                new MrHandle[] {mr});
                        while (!r.test(received)) {
                            check(deadline, "receive " + size);
                        }
                        boolean good = received[0] == size && Arrays.equals(expected.bytes(0, (int) size),
                                dst.bytes(0, (int) size));
                        for (long k = size; k < size + CANARY; k++) {
                            good &= dst.get(k) == 0x5A;
                        }
                        System.out.println("recv " + size + " B: " + (good ? "ok" : "WRONG (" + received[0] + " B)"));
                        ok &= good;
                        mr.close();
                    }
                }
                exchange.publish("recv.done", ok ? "ok" : "wrong");
                while (!exchange.has("send.done") && System.nanoTime() < deadline) {
                    endpoint.progress();
                }
                recv.close();
                listen.close();
            } else {
                byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", wait));
                SendComm send = Connections.connect(endpoint, handle, deadline);
                for (int i = 0; i < SIZES.length; i++) {
                    long size = SIZES[i];
                    try (HostBuffer src = new HostBuffer(Math.max(1, size)).pattern(i)) {
                        MrHandle mr = device.registrar().register(endpoint.rails(), src.address, src.size, Use.USER_BUFFER);
                        SendRequest s = send.isend(src.address, size, i, mr);
                        while (!s.test(null)) {
                            check(deadline, "send " + size);
                        }
                        mr.close();
                    }
                }
                // The receiver may still need this side's progress to finish.
                while (!exchange.has("recv.done") && System.nanoTime() < deadline) {
                    endpoint.progress();
                }
                exchange.publish("send.done", "1");
                send.close();
            }
            endpoint.close();
        }
        System.out.println(role + (ok ? ": all sizes verified" : ": MISMATCH"));
        System.exit(ok ? 0 : 1);
    }

    private static void check(long deadline, String what) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(what + " did not complete in time");
        }
    }
}
