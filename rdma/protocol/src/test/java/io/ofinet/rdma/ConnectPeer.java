package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;

/**
 * One side of a two-JVM connection over real libfabric: {@code ConnectPeer listen|connect DIR
 * PROVIDER DOMAIN}. Two data rails and two control rails on the domain; the listener publishes
 * its handle, the connector connects, both check the ids they learnt, exchange them through the
 * directory, and close everything in order. Exit status 0 means all checks passed.
 */
public final class ConnectPeer {
    private ConnectPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        DeviceSpec spec = Layouts.device(args[2], new String[] {args[3], args[3]}, "\"connectionTimeoutMs\": 20000");
        Duration wait = Duration.ofSeconds(40);
        try (Device device = Device.open(new OfiProvider(), spec)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            boolean ok;
            if (role.equals("listen")) {
                ListenComm listen = endpoint.listen();
                exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
                long deadline = System.nanoTime() + wait.toNanos();
                RecvComm recv = Connections.accept(endpoint, listen, deadline);
                exchange.publish("listener.ids", recv.id() + " " + recv.connection().peerCommId());
                String[] theirs = exchange.awaitString("connector.ids", wait).split(" ");
                ok = Integer.parseInt(theirs[0]) == recv.connection().peerCommId()
                        && Integer.parseInt(theirs[1]) == recv.id();
                // Keep progressing until the connector has finished with its side.
                while (!exchange.has("connector.done") && System.nanoTime() < deadline) {
                    endpoint.progress();
                }
                recv.close();
                listen.close();
            } else {
                byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", wait));
                long deadline = System.nanoTime() + wait.toNanos();
                SendComm send = Connections.connect(endpoint, handle, deadline);
                exchange.publish("connector.ids", send.id() + " " + send.connection().peerCommId());
                String[] theirs = exchange.awaitString("listener.ids", wait).split(" ");
                ok = Integer.parseInt(theirs[0]) == send.connection().peerCommId()
                        && Integer.parseInt(theirs[1]) == send.id();
                send.close();
                exchange.publish("connector.done", "1");
            }
            endpoint.close();
            System.out.println(role + (ok ? ": connected and closed" : ": IDS DIFFER"));
            System.exit(ok ? 0 : 1);
        }
    }
}
