package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.rdma.error.RdmaException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer whose shm region is gone from {@code /dev/shm} (removed by a cleaner such as systemd's
 * {@code RemoveIPC}, or by a process on its way out) cannot be reached: shm 1.17 maps a peer's
 * region by its name, and while it cannot, refuses every post to the peer with -FI_EAGAIN, as it
 * does for a peer that is only busy. ofinet looks for the name when posts to a peer stay refused
 * and fails the connection naming it, long before the refusals' own bound
 * ({@code postRetryTimeoutMs}, 10 s). The peer is another process: shm finds a peer of its own
 * process without the name.
 */
@Timeout(120)
class ShmRegionGoneIT {
    private static final Path SHM = Path.of("/dev/shm");

    @Test
    void aConnectToAPeerWhoseRegionIsGoneFailsSoonNamingIt(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isDirectory(SHM) && Files.isWritable(SHM), "no writable /dev/shm");
        AddressExchange exchange = new AddressExchange(dir);
        ChildJvm.Spec spec = new ChildJvm.Spec(Listener.class).args(dir.toString()).bound(Duration.ofSeconds(90));
        try (ChildJvm listener = spec.start();
                Device device = Device.open(new OfiProvider(), Layouts.device("shm", new String[] {"shm"}, ""))) {
            RdmaEndpoint connector = device.openEndpoint();
            byte[] handle = HexFormat.of().parseHex(exchange.awaitString("handle", Duration.ofSeconds(60)));
            String removed = exchange.awaitString("removed", Duration.ofSeconds(10));
            long start = System.nanoTime();
            RdmaException failure = null;
            Object connected = null;
            while (failure == null && connected == null && System.nanoTime() - start < 30_000_000_000L) {
                try {
                    connected = connector.connect(handle);
                } catch (RdmaException e) {
                    failure = e;
                }
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            exchange.publish("done", "1");
            assertNotNull(failure, "the connect failed (after " + millis + " ms; connected: " + connected + ")");
            String message = failure.getMessage();
            assertTrue(Arrays.stream(removed.split(" ")).anyMatch(name -> message.contains("/dev/shm/" + name)),
                    "names a removed region (" + removed + "): " + message);
            // Before the refusals' own bound (10 s), which a loaded machine's cold connect is far from.
            assertTrue(millis < 8_000, "failed after " + millis + " ms: " + message);
            assertEquals(0, listener.waitFor(), listener.output());
        }
    }

    /** Listens on shm, removes its own names from /dev/shm, and waits for the connector to finish. */
    public static final class Listener {
        private Listener() {
        }

        public static void main(String[] args) throws Exception {
            AddressExchange exchange = new AddressExchange(Path.of(args[0]));
            try (Device device = Device.open(new OfiProvider(), Layouts.device("shm", new String[] {"shm"}, ""))) {
                RdmaEndpoint endpoint = device.openEndpoint();
                ListenComm listen = endpoint.listen();
                List<String> names = new ArrayList<>();
                try (DirectoryStream<Path> own = Files.newDirectoryStream(SHM, ProcessHandle.current().pid() + ":*")) {
                    for (Path name : own) {
                        Files.delete(name);
                        names.add(name.getFileName().toString());
                    }
                }
                exchange.publish("handle", HexFormat.of().formatHex(listen.handle()));
                exchange.publish("removed", String.join(" ", names));
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!exchange.has("done") && System.nanoTime() < deadline) {
                    endpoint.progress();
                    Thread.sleep(1);
                }
                listen.close();
            } catch (IOException e) {
                e.printStackTrace();
                System.exit(1);
            }
            System.exit(0);
        }
    }
}
