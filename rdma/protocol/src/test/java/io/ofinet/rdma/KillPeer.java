package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;

/**
 * {@code KillPeer victim|survivor DIR}: the victim connects, sends one message and then spins in
 * progress until it is killed; the survivor receives that message, posts a second receive and
 * reports how long it took for that receive to fail once the victim is gone. peerTimeoutMs is 3 s.
 */
public final class KillPeer {
    private KillPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        DeviceSpec spec = Layouts.device("tcp;ofi_rxm", new String[] {"lo", "lo"},
                "\"peerTimeoutMs\": 3000, \"connectionTimeoutMs\": 30000");
        Duration wait = Duration.ofSeconds(60);
        long deadline = System.nanoTime() + wait.toNanos();
        try (Device device = Device.open(new OfiProvider(), spec); HostBuffer buf = new HostBuffer(1 << 20)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            MrHandle mr = device.registrar().register(endpoint.rails(), buf.address, buf.size, Use.USER_BUFFER);
            if (role.equals("victim")) {
                byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", wait));
                SendComm send = Connections.connect(endpoint, handle, deadline);
                SendRequest s = send.isend(buf.address, 4096, 1, mr);
                while (!s.test(null)) {
                    Thread.onSpinWait();
                }
                // An eager send is done once posted: wait until the survivor has the first message.
                while (!exchange.has("survivor.first")) {
                    endpoint.progress();
                }
                // A second send, in flight when the process dies.
                send.isend(buf.address, 1 << 20, 2, mr);
                exchange.publish("victim.ready", "1");
                while (true) {
                    endpoint.progress();
                }
            }
            ListenComm listen = endpoint.listen();
            exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
            RecvComm recv = Connections.accept(endpoint, listen, deadline);
            RecvRequest first = recv.irecv(1, new long[] {buf.address}, new long[] {4096}, new int[] {1},
                    new MrHandle[] {mr});
            while (!first.test(null)) {
                Thread.onSpinWait();
            }
            exchange.publish("survivor.first", "1");
            RecvRequest second = recv.irecv(1, new long[] {buf.address}, new long[] {buf.size}, new int[] {3},
                    new MrHandle[] {mr});
            long killed = 0;
            try {
                // The death may be noticed (its process gone from /proc) before the kill is announced.
                while (!exchange.has("victim.killed")) {
                    second.test(null);
                }
                killed = System.nanoTime();
                while (!second.test(null)) {
                    if (System.nanoTime() > deadline) {
                        System.out.println("survivor: the receive is still pending");
                        System.exit(1);
                    }
                }
                System.out.println("survivor: the receive completed although its sender died");
                System.exit(1);
            } catch (RdmaException e) {
                long ms = killed == 0 ? 0 : (System.nanoTime() - killed) / 1_000_000;
                System.out.println("survivor: " + e.category() + " after " + ms + " ms: " + e.getMessage());
                mr.close();
                System.exit(e.category() == ErrorCategory.REMOTE ? 0 : 1);
            }
        }
    }
}
