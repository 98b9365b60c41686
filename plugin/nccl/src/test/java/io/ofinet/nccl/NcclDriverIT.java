package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * libnccl-net-ofinet.so as NCCL loads it, driven from C by the project's driver: the exported
 * symbols, the declarations' layout, the JVM's start (on the runtime bundled beside the library,
 * unless a test names another) and its refusal of an old JDK or a broken runtime, and the whole
 * table between two processes on tcp and shm, from the primordial thread and from a second one.
 * Every run of the driver is bounded by {@link Driver#run}, scaled by the tests' time factor
 * ({@code ofinet.test.timeFactor}); the class has no fixed bound of its own that the factor could
 * not reach. The test that starts a Java host instead bounds itself.
 */
class NcclDriverIT {
    @Test
    void theLibraryExportsTheTableAndNothingElseOfOfinet() throws Exception {
        Process nm = new ProcessBuilder("nm", "-D", "--defined-only",
                Driver.LIBRARY_DIR.resolve("libnccl-net-ofinet.so").toString()).redirectErrorStream(true).start();
        String out = new String(nm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, nm.waitFor(), out);
        Set<String> symbols = out.lines().map(l -> l.trim().split("\\s+")).filter(f -> f.length == 3)
                .map(f -> f[1] + " " + f[2]).collect(Collectors.toSet());
        assertEquals(Set.of("D ncclNetPlugin_v12", "D ncclNetPlugin_v11", "D ncclNetPlugin_v10", "D ncclNetPlugin_v9",
                "D ncclNetPlugin_v8", "D ncclNetPlugin_v7", "D ncclNetPlugin_v6"), symbols,
                "defined dynamic symbols:\n" + out);
    }

    @Test
    void theDeclarationsMatchNcclsLayoutAndTheTableIsOfinets(@TempDir Path dir) throws Exception {
        Driver d = Driver.run(dir, Map.of(), Duration.ofSeconds(30), "layout");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().contains("layout: 78 passed, 0 failed"), d.output());
    }

    @Test
    void aJdkOlderThan22IsRefusedByNameAtInit(@TempDir Path dir) throws Exception {
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(java17.resolve("release")),
                "no Java 17 installed here");
        Driver d = Driver.run(dir, Map.of("OFINET_JAVA_HOME", java17.toString()), Duration.ofSeconds(30), "init");
        assertEquals(10 + 5, d.exitCode(), "init must fail with ncclInvalidUsage:\n" + d.output());
        assertTrue(d.output().contains("is Java 17") && d.output().contains("needs Java 22 or newer"), d.output());
        assertTrue(d.output().contains("ok: init: a second init gives the same result (5)"), d.output());
    }

    /**
     * The driver opens the library NCCL_NET_PLUGIN names as NCCL does (the name as written, then
     * libnccl-net-NAME.so), so that another plugin runs under it by path (docs/PERFORMANCE.md).
     */
    @Test
    void theDriverOpensTheLibraryNcclNetPluginNamesAsNcclDoes(@TempDir Path dir) throws Exception {
        String library = Driver.LIBRARY_DIR.resolve("libnccl-net-ofinet.so").toAbsolutePath().toString();
        // By path, with nothing on the loader's path to find it by name.
        Driver byPath = Driver.run(dir, Map.of("NCCL_NET_PLUGIN", library, "LD_LIBRARY_PATH", dir.toString()),
                Duration.ofSeconds(30), "init");
        assertEquals(0, byPath.exitCode(), byPath.output());
        assertTrue(byPath.output().contains("init: result 0"), byPath.output());
        // By name, as NCCL_NET_PLUGIN=ofinet reads: libnccl-net-ofinet.so through LD_LIBRARY_PATH.
        Driver byName = Driver.run(dir, Map.of("NCCL_NET_PLUGIN", "ofinet"), Duration.ofSeconds(30), "init");
        assertEquals(0, byName.exitCode(), byName.output());
        Driver none = Driver.run(dir, Map.of("NCCL_NET_PLUGIN", "nosuch"), Duration.ofSeconds(30), "init");
        assertEquals(1, none.exitCode(), none.output());
        assertTrue(none.output().contains("FAILED: init: dlopen NCCL_NET_PLUGIN=nosuch: as written (")
                && none.output().contains("as libnccl-net-nosuch.so through LD_LIBRARY_PATH ("), none.output());
        assertFalse(none.output().contains("init: result"), none.output());
    }

    @Test
    void aDirectoryThatIsNoJdkIsRefusedByName(@TempDir Path dir) throws Exception {
        Driver d = Driver.run(dir, Map.of("OFINET_JAVA_HOME", dir.toString()), Duration.ofSeconds(30), "init");
        assertEquals(10 + 5, d.exitCode(), d.output());
        assertTrue(d.output().contains(dir + " (OFINET_JAVA_HOME) is not a JDK"), d.output());
        // A pair whose init fails stops there on both sides: nothing more is asked of the table.
        Driver pair = Driver.run(dir, Map.of("OFINET_JAVA_HOME", dir.toString()), Duration.ofSeconds(60), "pair");
        assertEquals(1, pair.exitCode(), pair.output());
        assertTrue(pair.output().contains("FAILED: recv: init") && pair.output().contains("FAILED: send: init")
                && pair.output().contains("pair: receiver failed, sender failed"), pair.output());
        assertFalse(pair.output().contains("by signal") || pair.output().contains("FAILED: recv: devices"), pair.output());
    }

    /**
     * The runtime bundled beside the library, there but broken, is refused by name, not passed over
     * for JAVA_HOME: a directory without a release file, then one whose release file names a Java
     * but that holds no libjvm. The library is a copy in a directory of its own, whose ofinet/ holds
     * only that runtime.
     */
    @Test
    void aBrokenBundledRuntimeIsRefusedByName(@TempDir Path dir) throws Exception {
        Path lib = Files.createDirectories(dir.toRealPath().resolve("lib"));
        Files.copy(Driver.LIBRARY_DIR.resolve("libnccl-net-ofinet.so"), lib.resolve("libnccl-net-ofinet.so"));
        Path runtime = Files.createDirectories(lib.resolve("ofinet/runtime"));
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", lib.toString(), "JAVA_HOME", System.getProperty("java.home"));
        Driver noRelease = Driver.run(dir, env, Duration.ofSeconds(30), "init");
        assertEquals(10 + 5, noRelease.exitCode(), noRelease.output());
        assertTrue(noRelease.output().contains(runtime + " (the runtime bundled with ofinet) is not a JDK"),
                noRelease.output());
        Files.writeString(runtime.resolve("release"), "JAVA_VERSION=\"25.0.3\"\n");
        Driver noLibjvm = Driver.run(dir, env, Duration.ofSeconds(30), "init");
        assertEquals(10 + 2, noLibjvm.exitCode(), noLibjvm.output());
        assertTrue(noLibjvm.output().contains("cannot load " + runtime.resolve("lib/server/libjvm.so")
                + " (Java 25.0.3, the runtime bundled with ofinet)"), noLibjvm.output());
    }

    /**
     * The JVM the library creates runs with a guest's options (docs/NCCL.md, "The JVM's options"),
     * as HotSpot reports its flags; the user's OFINET_JVM_OPTIONS choose otherwise, a collector or a
     * heap size of theirs replacing the library's. The initial heap and the young generation go with
     * the library's collector only, and a young generation's size of the user's replaces the latter.
     */
    @Test
    void theJvmRunsAsAGuestUnlessTheUserChoosesOtherwise(@TempDir Path dir) throws Exception {
        Driver guest = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", "-XX:+PrintFlagsFinal"), Duration.ofSeconds(60),
                "init");
        assertFlags(guest, "UseSerialGC += true", "InitialHeapSize += 8388608", "MaxHeapSize += 1073741824",
                onCommandLine("NewSize", "1048576"), "CICompilerCount += 2", "UsePerfData += false",
                "AsyncDeflationInterval += 1000");
        assertNoFlag(guest, onCommandLine("MaxNewSize", "\\d+")); // the young generation grows with the heap
        Driver user = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", "-XX:+UseParallelGC -Xmx2g -XX:CICompilerCount=3"
                + " -XX:+PrintFlagsFinal"), Duration.ofSeconds(60), "init");
        assertFlags(user, "UseParallelGC += true", "UseSerialGC += false", "MaxHeapSize += 2147483648",
                "CICompilerCount += 3");
        // Each of these leaves the library's young generation out: another collector, a heap size, a
        // young generation's size of the user's.
        for (String options : new String[] {"-XX:+UseParallelGC", "-Xms16m", "-XX:NewRatio=3", "-XX:MaxNewSize=2m"}) {
            Driver d = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", options + " -XX:+PrintFlagsFinal"),
                    Duration.ofSeconds(60), "init");
            assertNoFlag(d, onCommandLine("NewSize", "\\d+"));
            if (options.contains("GC")) {
                // Nor the small initial heap: HotSpot 25's parallel collector, collecting the AOT cache's
                // objects before its start is done, crashed the process with it.
                assertNoFlag(d, onCommandLine("InitialHeapSize", "8388608"));
                assertFlags(d, "MaxHeapSize += 1073741824");
            }
        }
    }

    /**
     * The class-file API, which the JVM runs at init to generate the FFM stubs' classes, is left to
     * the interpreter (docs/NCCL.md, "The JVM's options"), quietly; the user's CompileCommand of the
     * same pattern with {@code false} gives it back to the compilers.
     */
    @Test
    void theClassFileApiIsLeftToTheInterpreterUnlessTheUserSaysOtherwise(@TempDir Path dir) throws Exception {
        Driver guest = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", "-XX:+PrintCompilation"), Duration.ofSeconds(60),
                "init");
        assertEquals(0, guest.exitCode(), guest.output());
        assertTrue(guest.output().contains("java.lang.String::"), "compilations printed:\n" + guest.output());
        assertFalse(guest.output().contains("jdk.internal.classfile."), guest.output());
        assertFalse(guest.output().contains("java.lang.classfile."), guest.output());
        assertFalse(guest.output().contains("CompileCommand"), "quiet:\n" + guest.output());
        Driver user = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", "-XX:+PrintCompilation"
                + " -XX:CompileCommand=exclude,jdk.internal.classfile.*::*,false"), Duration.ofSeconds(60), "init");
        assertEquals(0, user.exitCode(), user.output());
        assertTrue(user.output().contains("jdk.internal.classfile."), user.output());
    }

    /** An init that succeeded and printed HotSpot's final flags, each of {@code flags} among them. */
    private static void assertFlags(Driver d, String... flags) {
        assertEquals(0, d.exitCode(), d.output());
        for (String flag : flags) {
            assertTrue(Pattern.compile("(?m)^\\s*\\S+ " + flag + "\\b").matcher(d.output()).find(),
                    flag + " in HotSpot's flags:\n" + d.output());
        }
    }

    /** HotSpot's flag line for {@code flag} of {@code value} (a pattern) given on the command line. */
    private static String onCommandLine(String flag, String value) {
        return flag + " += " + value + " +\\{product\\} \\{command";
    }

    /** An init that succeeded and printed HotSpot's final flags, {@code flag} not among them. */
    private static void assertNoFlag(Driver d, String flag) {
        assertEquals(0, d.exitCode(), d.output());
        assertFalse(Pattern.compile("(?m)^\\s*\\S+ " + flag + "\\b").matcher(d.output()).find(),
                flag + " in HotSpot's flags:\n" + d.output());
    }

    /**
     * JVM options HotSpot cannot start with and answers by ending the process (heap sizes that
     * contradict each other, two collectors): init fails with ncclSystemError and the host goes on.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-Xms2g -Xmx1g|Initial heap size set to a larger value than the maximum heap size",
        "-XX:+UseG1GC -XX:+UseParallelGC|Multiple garbage collectors selected"})
    void jvmOptionsHotSpotCannotStartWithFailInitNotTheProcess(String options, String reason, @TempDir Path dir)
            throws Exception {
        Driver d = Driver.run(dir, Map.of("OFINET_JVM_OPTIONS", options), Duration.ofSeconds(30), "init");
        assertEquals(10 + 2, d.exitCode(), "init must fail with ncclSystemError:\n" + d.output());
        assertTrue(d.output().contains(reason), "HotSpot's reason:\n" + d.output());
        assertTrue(d.output().contains("check OFINET_JVM_OPTIONS"), d.output());
        assertTrue(d.output().contains("ok: init: a second init gives the same result (2)"), d.output());
    }

    /**
     * What a rank pays at start ({@code nccl_driver startup}, docs/PERFORMANCE.md): both ranks report
     * every figure, each positive and in its place among the others; few round trips, and no bound on
     * any figure, so that a busy machine passes as a quiet one does.
     */
    @Test
    void whatARankPaysAtStartIsReportedForBothRanks(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(120), "startup",
                "--cold", "50", "--tail", "2000");
        assertEquals(0, d.exitCode(), d.output());
        assertFalse(d.output().contains("FAILED"), d.output());
        assertTrue(d.output().contains("round trips of 8 B: 50 cold, 2000 after them"), d.output());
        List<Map<String, Double>> ranks = StartupFigures.of(d.output());
        assertEquals(2, ranks.size(), d.output());
        boolean cached = Files.exists(Driver.LIBRARY_DIR.resolve("libnccl-net-ofinet.aot"));
        for (Map<String, Double> rank : ranks) {
            assertEquals(StartupFigures.NAMES, rank.keySet(), d.output());
            StartupFigures.check(rank, d.output());
            assertEquals(cached, rank.get("map.aot") > 0, "the AOT cache resident where the build made one:\n"
                    + d.output());
        }
    }

    /**
     * Another plugin under the driver (ofinet's table under the name "renamed", src/test/c/plugin_renamed.c)
     * is known by its table's name: its start has every figure but init's split, which it has no
     * lines for, and its latency no reading of ofinet's JVM, as the C++ plugin runs
     * (docs/PERFORMANCE.md).
     */
    @Test
    void anotherPluginRunsWithoutTheReadingsOfOfinetsJvm(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Map<String, String> env = Map.of("OFINET_LAYOUT", layout.toString(), "NCCL_NET_PLUGIN",
                Driver.EXECUTABLE.resolveSibling("libnccl-net-renamed.so").toAbsolutePath().toString());
        Driver start = Driver.run(dir, env, Duration.ofSeconds(120), "startup", "--cold", "50", "--tail", "2000");
        assertEquals(0, start.exitCode(), start.output());
        assertFalse(start.output().contains("FAILED"), start.output());
        assertTrue(start.output().contains("rank 0: not ofinet (the table's name is renamed): init not split")
                && start.output().contains("rank 1: not ofinet (the table's name is renamed): init not split"),
                start.output());
        Set<String> split = Set.of("init.libjvm", "init.jvm", "init.bridge", "init.plugin", "init.rest");
        Set<String> expected = new java.util.HashSet<>(StartupFigures.NAMES);
        expected.removeAll(split);
        List<Map<String, Double>> ranks = StartupFigures.of(start.output());
        assertEquals(2, ranks.size(), start.output());
        for (Map<String, Double> rank : ranks) {
            assertEquals(expected, rank.keySet(), start.output());
            assertTrue(rank.get("init") > 0 && rank.get("init") <= rank.get("start"), start.output());
        }
        assertTrue(Pattern.compile("(?m)^ init\\.jvm +ms +- +- ").matcher(start.output()).find(), start.output());
        Driver latency = Driver.run(dir, env, Duration.ofSeconds(240), "bench", "latency", "8");
        assertEquals(0, latency.exitCode(), latency.output());
        assertEquals(1, Pattern.compile("(?m)^csv,8,").matcher(latency.output()).results().count(), latency.output());
        assertTrue(latency.output().contains("not ofinet (the table's name is renamed): Java's allocation per call not"
                + " measured"), latency.output());
        assertFalse(latency.output().contains("no allocation per call"), latency.output());
    }

    /**
     * The warm-up (docs/NCCL.md): each rank's first init starts it on a device of its own, tcp on
     * loopback beside a tcp layout; it makes its round trips, or ends at the rank's first listen, and
     * says which in a line at INFO (the round trips all made, or fewer and the stop named); {@code
     * OFINET_WARM_UP=off} leaves it out. After round trips, a rank's compiler threads are put at
     * SCHED_IDLE. Nothing is timed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"2000", "off"})
    void theWarmUpRunsBesideEachRankOrNotAtAll(String setting, @TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_WARM_UP", setting,
                "OFINET_JIT_NICE", "idle"),
                Duration.ofSeconds(120), "startup", "--cold", "50", "--tail", "2000", "--bootstrap", "2000");
        assertEquals(0, d.exitCode(), d.output());
        assertEquals(2, StartupFigures.of(d.output()).size(), d.output());
        java.util.regex.Matcher lines = Pattern.compile("warm-up: (\\d+) round trips through the table on its own"
                + " device in \\d+ ms(, stopped by NCCL's first listen or connect)?").matcher(d.output());
        int found = 0;
        int madeTrips = 0;
        while (lines.find()) {
            found++;
            madeTrips += lines.group(1).equals("0") ? 0 : 1;
            assertEquals(lines.group(1).equals("2000"), lines.group(2) == null, "all made, or fewer and why: "
                    + lines.group());
        }
        // After round trips, each rank's compilers go to SCHED_IDLE, all of them (one C1, one C2).
        long idle = Pattern.compile("JIT: 2 compiler thread\\(s\\) at SCHED_IDLE from now on, after the warm-up")
                .matcher(d.output()).results().count();
        if (setting.equals("off")) {
            assertFalse(d.output().contains("warm-up"), d.output());
        } else {
            assertEquals(2, found, "a line from each rank:\n" + d.output());
            assertTrue(d.output().contains("device warm-up: data rails [tcp;ofi_rxm/lo]"), d.output());
            assertEquals(madeTrips, idle, "a rank whose warm-up made round trips says so:\n" + d.output());
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({"tcp, primordial thread", "tcp, second thread", "shm, primordial thread", "shm, second thread"})
    void theTableBetweenTwoProcesses(String provider, String thread, @TempDir Path dir) throws Exception {
        Set<String> shmBefore = ShmNames.now();
        try {
            Path layout = Driver.layout(dir, provider);
            String[] args = thread.startsWith("second") ? new String[] {"pair", "--thread"} : new String[] {"pair"};
            Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(240), args);
            assertEquals(0, d.exitCode(), d.output());
            assertTrue(d.output().contains("pair: receiver passed, sender passed"), d.output());
            assertTrue(d.output().contains("created a Java"), "the library created the JVM:\n" + d.output());
            assertTrue(d.output().contains("(the runtime bundled with ofinet)"), "from its runtime:\n" + d.output());
            assertTrue(Pattern.compile("(?m)^recv: \\d+ passed, 0 failed$").matcher(d.output()).find(), d.output());
            assertTrue(Pattern.compile("(?m)^send: \\d+ passed, 0 failed$").matcher(d.output()).find(), d.output());
        } finally {
            ShmNames.removeNewSince(shmBefore);
        }
    }

    /**
     * Sends meet receive buffers by tag and ordinal (the k-th send with a tag fills the k-th receive
     * buffer with that tag) in the driver's four interleavings ({@code nccl_driver tags}), each with small, large and mixed sends
     * and with the receives posted one after another and ahead: on tcp as it comes (large buffers
     * take one tagged message), on tcp with writes (writeNotice message, heads for 1 MiB), and on shm
     * (writes). A run's bound is the driver's (60 s, failing loudly); none is timed.
     */
    @ParameterizedTest(name = "{0}, writeNotice {1}")
    @CsvSource({"tcp, auto", "tcp, message", "shm, auto"})
    void sendsMeetReceiveBuffersByTagAndOrdinal(String provider, String writeNotice, @TempDir Path dir)
            throws Exception {
        Set<String> shmBefore = ShmNames.now();
        try {
            Path layout = Driver.layout(dir, provider);
            Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_WRITE_NOTICE", writeNotice),
                    Duration.ofSeconds(240), "tags");
            assertEquals(0, d.exitCode(), d.output());
            assertTrue(d.output().contains("pair: receiver passed, sender passed"), d.output());
            assertTrue(d.output().contains("writeNotice " + writeNotice), "the device's init line:\n" + d.output());
            assertTrue(d.output().contains("recv: tags: 24 runs, 0 failed, 0 skipped"), d.output());
            assertTrue(d.output().contains("send: tags: 24 runs, 0 failed, 0 skipped"), d.output());
            assertTrue(!d.output().contains("FAILED"), d.output());
        } finally {
            ShmNames.removeNewSince(shmBefore);
        }
    }


    /**
     * NCCL's lifecycle: the v10, v9 and v11 tables; a reload, three rounds; teardown in NCCL's order
     * after all ended, with requests outstanding, with a send coming into a receive whose memory was
     * deregistered and freed (none of it may land), and after the peer died (its process exits); four
     * communicators connected on one thread and driven from four others, twice; a peer killed with
     * SIGKILL while another keeps sending (tcp only: on shm a peer killed inside a send blocks other
     * senders to its process in libfabric 1.17, docs/FABRIC.md).
     */
    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"versions, tcp", "reload, tcp", "teardown, tcp", "teardown, shm", "threads, tcp", "threads, shm",
        "kill, tcp"})
    void ncclsLifecycle(String mode, String provider, @TempDir Path dir) throws Exception {
        Set<String> shmBefore = ShmNames.now();
        try {
            Path layout = Driver.layout(dir, provider);
            Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(240), mode);
            assertEquals(0, d.exitCode(), d.output());
            assertTrue(mode.equals("kill") ? Pattern.compile("(?m)^recv: [1-9]\\d* passed, 0 failed$")
                    .matcher(d.output()).find() : d.output().contains("pair: receiver passed, sender passed"),
                    d.output());
            assertTrue(!d.output().contains("FAILED"), d.output());
        } finally {
            ShmNames.removeNewSince(shmBefore); // a peer that died (_exit, SIGKILL) cleans nothing
        }
    }

    /**
     * NCCL's proxy thread of a communicator makes its connections and ends with it: twelve such
     * threads in turn, each connecting, moving a verified message and closing, leave no endpoint
     * open behind them (the process's open files do not grow), and the last one's endpoint closes
     * without another thread coming.
     */
    @Test
    void proxyThreadsThatEndLeaveNoEndpointOpen(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(240), "proxies");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().contains("ok: proxies: open files once connected do not grow"), d.output());
        assertTrue(d.output().contains("ok: proxies: the last thread's endpoint closed"), d.output());
        assertTrue(d.output().contains("proxies: 16 checks passed, 0 failed"), d.output());
    }

    /**
     * A host that forks while its first init creates the JVM, and once the library runs: each
     * child's calls are refused at once with ncclSystemError (the JVM's threads, and the locks its
     * start holds, stayed in the parent) and its exit() leaves the parent's /dev/shm names, so that the
     * parent's endpoints stay reachable and it goes on moving data.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aForkedChildIsRefusedAndItsExitLeavesTheParentsShmNames(String provider, @TempDir Path dir)
            throws Exception {
        Set<String> shmBefore = ShmNames.now();
        try {
            Path layout = Driver.layout(dir, provider);
            Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(120), "fork");
            assertEquals(0, d.exitCode(), d.output());
            assertTrue(d.output().contains("this process was forked from the one ofinet's JVM runs in"), d.output());
            assertTrue(d.output().contains("fork: 9 checks passed, 0 failed"), d.output());
            if (provider.equals("shm")) {
                assertFalse(d.output().contains("parent's 0 /dev/shm names"), "shm endpoints have names:\n"
                        + d.output());
            }
        } finally {
            ShmNames.removeNewSince(shmBefore);
        }
    }

    /** A host that ends with exit() and communicators open on shm leaves no /dev/shm name behind. */
    @Test
    void exitWithCommunicatorsOpenLeavesNoShmName(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "shm");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString()), Duration.ofSeconds(120), "exit");
        assertEquals(0, d.exitCode(), d.output());
        java.util.regex.Matcher pids = Pattern.compile("pid (\\d+) exits").matcher(d.output());
        int found = 0;
        while (pids.find()) {
            found++;
            String prefix = pids.group(1) + ":";
            Set<String> left = ShmNames.now();
            left.removeIf(n -> !n.startsWith(prefix));
            assertEquals(Set.of(), left, "names of process " + pids.group(1) + " left in /dev/shm\n" + d.output());
        }
        assertEquals(2, found, d.output());
    }

    /**
     * A C host that runs a JVM of its own from a libjvm it loaded privately (RTLD_LOCAL, so that
     * its symbols are not the process's): the library finds that JVM and runs in it rather than
     * try to create a second one, which that libjvm refuses.
     */
    @Test
    void aHostsJvmFromAPrivatelyLoadedLibjvmIsTheOneTheLibraryRunsIn(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Driver d = Driver.run(dir, Map.of("OFINET_LAYOUT", layout.toString(), "OFINET_JAVA_HOME",
                System.getProperty("java.home")), Duration.ofSeconds(120), "hostjvm");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().contains("attached to the JVM already running"), d.output());
        assertTrue(d.output().contains("hostjvm: 7 checks passed, 0 failed"), d.output());
    }

    /**
     * A host that is itself a JVM loads the library through FFM, without ofinet on its class path:
     * the library attaches to that JVM and loads ofinet through its own class loader.
     */
    @Test
    @Timeout(300) // the host is read to its end before its 120 s bound is looked at
    void aJavaHostLoadsTheLibrary(@TempDir Path dir) throws Exception {
        Path layout = Driver.layout(dir, "tcp");
        Path javaCommand = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(javaCommand.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                Path.of("target", "test-classes").toAbsolutePath().toString(), JavaHost.class.getName())
                .directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", Driver.LIBRARY_DIR.toAbsolutePath().toString());
        pb.environment().put("OFINET_LAYOUT", layout.toString());
        pb.environment().put("OFINET_DEBUG", "INFO"); // the library's own lines on stderr: no NCCL logger here
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("javahost: all checks passed") && out.contains("attached to the JVM already running"),
                out);
        // Once ofinet's shutdown hook has run, calls fail in the library, which says so once.
        assertTrue(out.contains("ok: once the JVM ends, devices answers 2"), out);
        assertEquals(1, out.split("devices: the JVM is shutting down; no call enters it any more", -1).length - 1,
                "said once:\n" + out);
    }
}
