package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.NetNamespaces;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libfabric's load beside the bridge, read from the JVM's own log of a rank's init: the load's
 * thread is made before the first upcall stub, and from then on the bridge's thread looks no
 * native method up ({@link NativesAhead}), so nothing of the bridge can wait for the load's lock.
 * A native the bridge calls for the first time after starting the load, on this JDK, fails here,
 * whether or not that run's timing made it wait (a lookup that waited is logged only once the
 * load has released the lock). And the load that fails: a node without libfabric.
 */
class BridgeLoadIT {
    /** A line of -Xlog with the decorations tn (the monotonic clock, ns) and tid, padded to their widest. */
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ns *\\]\\[(\\d+) *\\] (.*)$");

    private record Event(long ns, long tid, String text) {
    }

    @Test
    void theLoadStartsBeforeTheFirstStubAndTheBridgeLooksNoNativeUpOnceItStarted(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Path jvmLog = dir.resolve("jvm.log");
        String tags = "class+init=info,class+load=info,jni+resolve=debug,os+thread=info";
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_WARM_UP", "off",
                "OFINET_JVM_OPTIONS", "-Xlog:" + tags + ":file=" + jvmLog + ":tn,tid"), Duration.ofSeconds(60), "init");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().contains("init: result 0"), d.output());
        List<Event> events = Files.readAllLines(jvmLog).stream().map(LINE::matcher).filter(Matcher::matches)
                .map(m -> new Event(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3))).toList();
        Event bridge = first(events, "Initializing 'io/ofinet/nccl/NcclBridge'");
        Event loaded = first(events, "Initializing 'io/ofinet/fabric/ofi/OfiLibrary$Loaded'");
        assertTrue(loaded.text().contains("by thread \"ofinet-libfabric-load\""), "on the load's thread: " + loaded);
        Event loadStart = created(events, bridge.tid(), loaded.tid());
        Event firstStub = first(events, "jdk.internal.foreign.abi.UpcallStub/");
        assertTrue(loadStart.ns() < firstStub.ns(), "the load's thread made before the first stub: " + loadStart
                + ", " + firstStub);
        List<Event> before = events.stream().filter(e -> e.tid() == bridge.tid() && e.ns() < loadStart.ns()
                && e.text().contains("Dynamic-linking native method")).toList();
        assertTrue(!before.isEmpty(), "the log names the natives the bridge's thread looks up (NativesAhead's,"
                + " before the load): without them the check below could not fail");
        List<Event> after = events.stream().filter(e -> e.tid() == bridge.tid() && e.ns() > loadStart.ns()
                && e.text().contains("Dynamic-linking native method")).toList();
        assertEquals(List.of(), after, "natives the bridge looked up after starting the load (NativesAhead's list)");
    }

    /**
     * On a node without libfabric, NCCL's init fails with ncclSystemError, the library named and how
     * to install it, a second init the same, and nothing crashes. The library is hidden by a private
     * mount namespace in which /dev/null is bound over it (root, as on these machines and in CI).
     */
    @Test
    void withoutLibfabricInitFailsSayingHowToInstallIt(@TempDir Path dir) throws Exception {
        assumeTrue(NetNamespaces.canHide(NetNamespaces.LIBFABRIC), "needs root and Debian's libfabric");
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_WARM_UP", "off"),
                Duration.ofSeconds(60), List.of(NetNamespaces.hiding(NetNamespaces.LIBFABRIC)), "init");
        assertEquals(10 + 2, d.exitCode(), "the driver's exit for init's ncclSystemError: " + d.output());
        assertTrue(d.output().contains("init: result 2,"), "ncclSystemError: " + d.output());
        assertTrue(d.output().contains("libfabric is not available: cannot load libfabric.so.1"), d.output());
        assertTrue(d.output().contains("install it with apt-get install libfabric1"), d.output());
        assertTrue(d.output().contains("ok: init: a second init gives the same result"), d.output());
        assertFalse(d.output().contains("FAILED"), d.output());
    }

    /**
     * When {@code creator} made the thread {@code tid}, by the creator's clock: HotSpot logs a
     * creation with the new thread's pthread id (its name comes later), and the thread's first line
     * ties its tid to that id. The creation is the creator's last of that id before the thread's
     * first line: a pthread id is an address, which a later thread may take again.
     */
    private static Event created(List<Event> events, long creator, long tid) {
        Event alive = first(events, "Thread is alive (tid: " + tid + ",");
        Matcher id = Pattern.compile("pthread id: (\\d+)\\)").matcher(alive.text());
        assertTrue(id.find(), "a pthread id in " + alive);
        String started = "started (pthread id: " + id.group(1) + ",";
        return events.stream().filter(e -> e.tid() == creator && e.ns() <= alive.ns() && e.text().contains(started))
                .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no creation of thread " + tid + " by "
                        + creator + " before " + alive));
    }

    private static Event first(List<Event> events, String text) {
        return events.stream().filter(e -> e.text().contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with " + text + " in the JVM's log"));
    }
}
