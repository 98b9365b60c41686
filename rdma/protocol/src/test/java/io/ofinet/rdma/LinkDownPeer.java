package io.ofinet.rdma;

import io.ofinet.config.DeviceSpec;
import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.Request;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.send.SendComm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;

/**
 * {@code LinkDownPeer send|recv DIR DOMAIN0 DOMAIN1}: 8 MiB messages striped over two data rails
 * (one control rail, on rail 0) until one fails; after two good ones it publishes "warm" so that
 * the test can take rail 1's link down. Exit status 0 when the failure is a remote error.
 */
public final class LinkDownPeer {
    private static final int SIZE = 8 << 20;

    private LinkDownPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        AddressExchange exchange = new AddressExchange(Path.of(args[1]));
        DeviceSpec spec = Layouts.device("tcp;ofi_rxm", new String[] {args[2], args[3]},
                "\"controlRails\": [{\"dataRail\": 0}], \"minStripeSize\": 4096, \"eagerMaxSize\": 4096,"
                        + " \"peerTimeoutMs\": 2000");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        try (Device device = Device.open(new OfiProvider(), spec); HostBuffer buf = new HostBuffer(SIZE)) {
            RdmaEndpoint endpoint = device.openEndpoint();
            MrHandle mr = device.registrar().register(endpoint.rails(), buf.address, buf.size, Use.USER_BUFFER);
            SendComm send = null;
            RecvComm recv = null;
            if (role.equals("recv")) {
                ListenComm listen = endpoint.listen();
                exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
                recv = Connections.accept(endpoint, listen, deadline);
            } else {
                byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", Duration.ofSeconds(60)));
                send = Connections.connect(endpoint, handle, deadline);
            }
            for (int i = 0; System.nanoTime() < deadline; i++) {
                Request request = send != null ? send.isend(buf.address, SIZE, i, mr)
                        : recv.irecv(1, new long[] {buf.address}, new long[] {SIZE}, new int[] {i}, new MrHandle[] {mr});
                try {
                    while (!request.test(null)) {
                        if (System.nanoTime() > deadline) {
                            System.out.println(role + ": HUNG on message " + i);
                            System.exit(1);
                        }
                    }
                } catch (RdmaException e) {
                    System.out.println(role + ": error " + e.category() + " on message " + i + ": " + e.getMessage());
                    System.exit(e.category() == ErrorCategory.REMOTE && i >= 2 ? 0 : 1);
                }
                if (i == 1 && send != null) {
                    exchange.publish("warm", "1");
                }
            }
            System.out.println(role + ": no error before the deadline");
            System.exit(1);
        }
    }
}
