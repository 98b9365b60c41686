package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.AddressExchange;
import io.ofinet.fabric.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process using ofinet ends promptly on SIGTERM whatever its peer does: two processes stream
 * ({@link TermPeer}), the peer is stopped (SIGSTOP), and the process, which has two endpoints, gets
 * SIGTERM mid-transfer. It must end within 8 s, before any wait for the stopped peer would end
 * (postRetryTimeoutMs, 10 s, on shm; peerTimeoutMs, 30 s), through the JVM's shutdown (exit status
 * 143), and leave none of its shm names in {@code /dev/shm} (shm's own SIGTERM handler removes them).
 */
@Timeout(120)
class TerminationIT {

    @ParameterizedTest
    @ValueSource(strings = {"tcp;ofi_rxm", "shm"})
    void sigtermEndsTheProcessPromptlyWhileItsPeerIsStopped(String provider, @TempDir Path dir)
            throws Exception {
        Path layout = dir.resolve("layout.json");
        String domain = provider.equals("shm") ? "shm" : "lo";
        Files.writeString(layout, "{\"devices\": [{\"name\": \"d\", \"dataRails\": [{\"provider\": \"" + provider
                + "\", \"domain\": \"" + domain + "\"}]}]}");
        AddressExchange exchange = new AddressExchange(dir);
        try (ChildJvm a = spec("a", dir, layout).start(); ChildJvm b = spec("b", dir, layout).start()) {
            exchange.await("a.streaming", Duration.ofSeconds(60));
            String pid = Long.toString(a.pid());
            assertTrue(provider.equals("tcp;ofi_rxm") || !shmNames(pid).isEmpty(), "a's shm names are in /dev/shm");
            signal("-STOP", Long.toString(b.pid()));
            try {
                long start = System.nanoTime();
                signal("-TERM", pid);
                int status = a.waitFor();
                long ms = (System.nanoTime() - start) / 1_000_000;
                System.out.println(provider + ": ended " + ms + " ms after SIGTERM, status " + status + "\n"
                        + a.output());
                assertTrue(ms <= 8_000, "ended " + ms + " ms after SIGTERM\n" + a.output());
                assertEquals(143, status, "the JVM's shutdown on SIGTERM\n" + a.output());
                assertEquals(List.of(), shmNames(pid), "a's shm names left in /dev/shm");
            } finally {
                signal("-CONT", Long.toString(b.pid()));
            }
        }
    }

    /**
     * A process that ends without closing ofinet (System.exit mid-transfer, no signal) leaves none of
     * its shm names in /dev/shm either: libfabric 1.17's shm removes them only on close and in its
     * signal handlers, and each holds its region's memory (16 MiB) until a process with the same pid
     * comes, which then cannot open a shm endpoint.
     */
    @Test
    void exitWithoutClosingLeavesNoShmNames(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("layout.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"d\", \"dataRails\": [{\"provider\": \"shm\","
                + " \"domain\": \"shm\"}]}]}");
        AddressExchange exchange = new AddressExchange(dir);
        try (ChildJvm a = spec("a", dir, layout).start(); ChildJvm b = spec("b", dir, layout).start()) {
            exchange.await("a.streaming", Duration.ofSeconds(60));
            String pid = Long.toString(a.pid());
            assertFalse(shmNames(pid).isEmpty(), "a's shm names are in /dev/shm");
            exchange.publish("a.exit", "1");
            int status = a.waitFor();
            assertEquals(0, status, "a's exit\n" + a.output());
            assertTrue(a.output().contains("a: exiting without closing"), a.output());
            assertEquals(List.of(), shmNames(pid), "a's shm names left in /dev/shm after its exit\n" + a.output()
                    + "\nb:\n" + b.output());
        }
    }

    /** Entries of /dev/shm that shm names after process {@code pid}. */
    private static List<String> shmNames(String pid) throws Exception {
        try (Stream<Path> names = Files.list(Path.of("/dev/shm"))) {
            return names.map(n -> n.getFileName().toString()).filter(n -> n.startsWith(pid + ":")
                    || n.startsWith(pid + "_")).toList();
        }
    }

    private static void signal(String signal, String pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", signal, pid).start().waitFor(), "kill " + signal + " " + pid);
    }

    private static ChildJvm.Spec spec(String me, Path dir, Path layout) {
        return new ChildJvm.Spec(TermPeer.class).args(me, dir.toString()).env("OFINET_LAYOUT", layout.toString())
                .env("OFINET_PLUGIN", "ofinet").bound(Duration.ofSeconds(100)).directory(dir);
    }
}
