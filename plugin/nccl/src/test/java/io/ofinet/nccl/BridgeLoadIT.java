package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * libfabric's load beside the bridge, read from the JVM's own log of a rank's init: the load
 * starts before the first upcall stub is made, and while it holds the loader's lock the bridge's
 * thread looks no native method up ({@link NativesAhead}), so nothing of the bridge waits for it.
 * A native the bridge calls for the first time during the load, on this JDK, fails here.
 */
class BridgeLoadIT {
    /** A line of -Xlog with the decorations tn (the monotonic clock, ns) and tid. */
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ns\\]\\[(\\d+)\\] (.*)$");

    private record Event(long ns, long tid, String text) {
    }

    @Test
    void theLoadStartsBeforeTheFirstStubAndTheBridgeLooksNoNativeUpDuringIt(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("tcp.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"tcp\", \"dataRails\": [{\"provider\": \"tcp;ofi_rxm\","
                + " \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}");
        Path jvmLog = dir.resolve("jvm.log");
        String tags = "class+init=info,class+load=info,jni+resolve=debug,os+thread=info";
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_WARM_UP", "off",
                "OFINET_JVM_OPTIONS", "-Xlog:" + tags + ":file=" + jvmLog + ":tn,tid"), Duration.ofSeconds(60), "init");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().contains("init: result 0"), d.output());
        List<Event> events = Files.readAllLines(jvmLog).stream().map(LINE::matcher).filter(Matcher::matches)
                .map(m -> new Event(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3))).toList();
        Event bridge = first(events, "Initializing 'io/ofinet/nccl/NcclBridge'");
        Event loadStart = created(events, "ofinet-libfabric-load");
        Event loaded = first(events, "Initializing 'io/ofinet/fabric/ofi/OfiLibrary$Loaded'");
        Event firstStub = first(events, "jdk.internal.foreign.abi.UpcallStub/");
        assertTrue(loadStart.ns() < firstStub.ns(), "the load's thread made before the first stub: " + loadStart
                + ", " + firstStub);
        List<Event> waited = events.stream().filter(e -> e.tid() == bridge.tid() && e.ns() > loadStart.ns()
                && e.ns() < loaded.ns() && e.text().contains("Dynamic-linking native method")).toList();
        assertEquals(List.of(), waited, "natives the bridge looked up while libfabric loaded (NativesAhead's list)");
    }

    /**
     * When the thread {@code name} was created, by its creator's clock: HotSpot logs a thread's
     * creation before the thread has its name, and its end with the name and its tid, which its
     * first line ties to the pthread id of its creation.
     */
    private static Event created(List<Event> events, String name) {
        Matcher exit = Pattern.compile("JavaThread exiting \\(name: \"" + Pattern.quote(name) + "\", tid: (\\d+)\\)")
                .matcher(first(events, "JavaThread exiting (name: \"" + name + "\"").text());
        assertTrue(exit.find(), name + "'s end");
        Matcher alive = Pattern.compile("Thread is alive \\(tid: " + exit.group(1) + ", pthread id: (\\d+)\\)")
                .matcher(first(events, "Thread is alive (tid: " + exit.group(1) + ",").text());
        assertTrue(alive.find(), name + "'s start");
        return first(events, "started (pthread id: " + alive.group(1) + ",");
    }

    private static Event first(List<Event> events, String text) {
        return events.stream().filter(e -> e.text().contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with " + text + " in the JVM's log"));
    }
}
