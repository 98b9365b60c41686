package io.ofinet.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as a user gets it: unpacked into a directory of its own, away from the source tree,
 * its launcher runs a pingpong over real tcp on loopback, and NCCL's library loads from its lib/
 * with the jars it needs beside it and the AOT cache of their classes.
 */
@Timeout(300)
class DistributionIT {
    private static final Path TARBALL = Path.of(System.getProperty("ofinet.dist.tarball", "missing.tar.gz"));
    private static final String NAME = System.getProperty("ofinet.dist.name", "ofinet");
    private static final Path DRIVER = Path.of(System.getProperty("ofinet.nccl.driver", "nccl_driver"));
    /** What -Xlog:class+load says of ofinet's bridge class when it came from the AOT cache. */
    private static final String BRIDGE_FROM_CACHE = "io.ofinet.nccl.NcclBridge source: shared objects file";
    /** The build's JDK, which runs this test, makes the AOT cache in one step from Java 25 on. */
    private static final boolean MAKES_AOT_CACHES = Runtime.version().feature() >= 25;

    @TempDir
    static Path unpacked;
    private static Path home;

    @BeforeAll
    static void unpack() throws Exception {
        Run tar = Run.of(unpacked, Map.of(), 60, "tar", "xzf", TARBALL.toString());
        assertEquals(0, tar.exitCode(), tar.output());
        home = unpacked.resolve(NAME);
        assertTrue(Files.isDirectory(home), "the tarball unpacks into " + NAME + "/");
    }

    @Test
    void holdsTheLaunchersTheJarsTheLibraryAndTheDocs() throws IOException {
        for (String file : List.of("bin/ofinet-perf", "bin/ofinet-layout", "bin/ofinet-plot")) {
            assertTrue(Files.isExecutable(home.resolve(file)), file + " is executable");
        }
        for (String file : List.of("bin/lib/common.sh", "lib/libnccl-net-ofinet.so", "README.md", "INSTALL.md",
                "docs/NCCL.md", "docs/CONFIGURATION.md")) {
            assertTrue(Files.isRegularFile(home.resolve(file)), file);
        }
        for (String file : List.of("lib/libnccl-net-ofinet.aot", "lib/libnccl-net-ofinet.aot.id")) {
            assertEquals(MAKES_AOT_CACHES, Files.isRegularFile(home.resolve(file)), file + " made by a JDK 25+ only");
        }
        assertTrue(!Files.exists(home.resolve("pom.xml")), "no build file: the launchers run what is there");
        List<String> java = jars(home.resolve("lib/java"));
        for (String prefix : List.of("ofinet-plugin-api-", "ofinet-plugin-", "ofinet-rdma-", "ofinet-fabric-",
                "ofinet-config-", "ofinet-mr-", "jna-", "jackson-databind-", "picocli-")) {
            assertTrue(java.stream().anyMatch(j -> j.startsWith(prefix)), prefix + "*.jar in lib/java: " + java);
        }
        List<String> nccl = jars(home.resolve("lib/ofinet"));
        for (String prefix : List.of("ofinet-nccl-", "ofinet-plugin-", "ofinet-rdma-", "jna-", "jackson-databind-")) {
            assertTrue(nccl.stream().anyMatch(j -> j.startsWith(prefix)), prefix + "*.jar in lib/ofinet: " + nccl);
        }
        assertTrue(Files.isRegularFile(home.resolve("lib/ofinet/libjnidispatch.so")),
                "JNA's native library unpacked beside the jars: JNA need not unpack it at each start");
    }

    @Test
    void theLibraryExportsNcclsTable() throws Exception {
        Run nm = Run.of(home, Map.of(), 30, "nm", "-D", "--defined-only", "lib/libnccl-net-ofinet.so");
        assertEquals(0, nm.exitCode(), nm.output());
        assertTrue(nm.output().lines().anyMatch(l -> l.matches("\\S+ D ncclNetPlugin_v12")), nm.output());
    }

    /**
     * NCCL's way in: the library found through LD_LIBRARY_PATH=lib (the only directory given, so the
     * tarball's copy) starts a JVM over lib/ofinet's jars; plugin/nccl's C driver plays NCCL.
     */
    @Test
    void ncclsLibraryInitsFromLib(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("tcp.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"tcp\", \"dataRails\": [{\"provider\": \"tcp;ofi_rxm\","
                + " \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}");
        assertTrue(Files.isExecutable(DRIVER), "plugin/nccl's C driver is built: " + DRIVER);
        Run init = Run.of(dir, Map.of("LD_LIBRARY_PATH", home.resolve("lib").toString(), "OFINET_LAYOUT",
                layout.toString(), "OFINET_JAVA_HOME", System.getProperty("java.home")), 60,
                DRIVER.toAbsolutePath().toString(), "init");
        assertEquals(0, init.exitCode(), init.output());
        assertTrue(init.output().contains("init: result 0"), init.output());
        assertTrue(init.output().contains("ofinet initialised: 1 device(s)"), "Java ran from lib/ofinet's jars: "
                + init.output());
    }

    /**
     * The AOT cache made where the library was built serves the unpacked copy: HotSpot opens it
     * from lib/, links its classes ahead of time and takes ofinet's own from it, not from the jars.
     */
    @Test
    void initTakesOfinetsClassesFromTheAotCacheInLib(@TempDir Path dir) throws Exception {
        assumeTrue(MAKES_AOT_CACHES, "no AOT cache: the build's JDK is older than 25");
        Path cache = home.resolve("lib/libnccl-net-ofinet.aot").toRealPath();
        Run init = init(dir, home.resolve("lib"), System.getProperty("java.home"),
                Map.of("OFINET_JVM_OPTIONS", "-Xlog:aot -Xlog:class+load"));
        assertEquals(0, init.exitCode(), init.output());
        assertTrue(init.output().contains("AOT cache " + cache + ": handed to the JVM"), init.output());
        assertTrue(init.output().contains("Opened AOT cache " + cache), init.output());
        assertTrue(init.output().contains("Using AOT-linked classes: true"), init.output());
        assertTrue(init.output().contains(BRIDGE_FROM_CACHE), init.output());
        Run off = init(dir, home.resolve("lib"), System.getProperty("java.home"),
                Map.of("OFINET_JVM_OPTIONS", "-Xlog:class+load", "OFINET_AOT_CACHE", "off"));
        assertEquals(0, off.exitCode(), off.output());
        assertFalse(off.output().contains(BRIDGE_FROM_CACHE) || off.output().contains("AOT cache"), off.output());
    }

    /**
     * A JDK other than the one that made the cache (here the build's JDK under another release
     * file) gets none, and a cache HotSpot itself refuses (here its record of the JVM's build
     * altered) is dropped without a word on the host's output: init succeeds from the jars.
     */
    @Test
    void anotherJdkOrACacheHotSpotRefusesFallsBackQuietly(@TempDir Path dir) throws Exception {
        assumeTrue(MAKES_AOT_CACHES, "no AOT cache: the build's JDK is older than 25");
        Path jdk = Path.of(System.getProperty("java.home"));
        Path other = Files.createDirectory(dir.resolve("other-jdk"));
        try (Stream<Path> entries = Files.list(jdk)) {
            for (Path entry : entries.filter(e -> !e.getFileName().toString().equals("release")).toList()) {
                Files.createSymbolicLink(other.resolve(entry.getFileName()), entry);
            }
        }
        Files.writeString(other.resolve("release"), Files.readString(jdk.resolve("release"))
                .replaceAll("(?m)^JAVA_RUNTIME_VERSION=.*$", "JAVA_RUNTIME_VERSION=\"25.0.99+1\""));
        Run otherJdk = init(dir, home.resolve("lib"), other.toString(), Map.of("OFINET_JVM_OPTIONS", "-Xlog:class+load"));
        assertEquals(0, otherJdk.exitCode(), otherJdk.output());
        assertTrue(otherJdk.output().contains("not used: it was made by another JDK"), otherJdk.output());
        assertFalse(otherJdk.output().contains(BRIDGE_FROM_CACHE), otherJdk.output());

        Path lib = dir.resolve("lib");
        Run copy = Run.of(dir, Map.of(), 60, "cp", "-a", home.resolve("lib").toString(), lib.toString());
        assertEquals(0, copy.exitCode(), copy.output());
        alterTheJvmsBuildIn(lib.resolve("libnccl-net-ofinet.aot"));
        Run refused = init(dir, lib, jdk.toString(), Map.of());
        assertEquals(0, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("handed to the JVM"), refused.output());
        assertFalse(refused.output().contains("[warning]") || refused.output().contains("[error")
                || refused.output().contains("AOT cache was created"), "quiet:\n" + refused.output());
        Run logged = init(dir, lib, jdk.toString(), Map.of("OFINET_JVM_OPTIONS", "-Xlog:aot -Xlog:class+load"));
        assertEquals(0, logged.exitCode(), logged.output());
        assertTrue(logged.output().contains("The AOT cache was created by a different version or build of HotSpot"),
                logged.output());
        assertFalse(logged.output().contains(BRIDGE_FROM_CACHE), logged.output());
    }

    /** Changes one character of the JVM's version where the cache's header records it. */
    private static void alterTheJvmsBuildIn(Path cache) throws IOException {
        byte[] bytes = Files.readAllBytes(cache);
        byte[] version = System.getProperty("java.vm.version").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 4096; i++) {
            if (java.util.Arrays.equals(bytes, i, i + version.length, version, 0, version.length)) {
                bytes[i] = (byte) (bytes[i] == '9' ? '8' : '9');
                Files.write(cache, bytes);
                return;
            }
        }
        throw new AssertionError("the cache's header records no " + System.getProperty("java.vm.version"));
    }

    private static Run init(Path dir, Path lib, String javaHome, Map<String, String> env) throws Exception {
        Path layout = dir.resolve("tcp.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"tcp\", \"dataRails\": [{\"provider\": \"tcp;ofi_rxm\","
                + " \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}");
        Map<String, String> all = new java.util.HashMap<>(Map.of("LD_LIBRARY_PATH", lib.toString(), "OFINET_LAYOUT",
                layout.toString(), "OFINET_JAVA_HOME", javaHome));
        all.putAll(env);
        return Run.of(dir, all, 60, DRIVER.toAbsolutePath().toString(), "init");
    }

    @Test
    void ofinetPerfRunsAPingpongFromTheUnpackedTree(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("run.csv");
        Run perf = Run.of(dir, Map.of("OFINET_JAVA_HOME", System.getProperty("java.home")), 240,
                home.resolve("bin/ofinet-perf").toString(), "pingpong", "--provider", "tcp;ofi_rxm", "--sizes=8",
                "--warmup", "10", "--iters", "20", "--reps", "2", "--csv", csv.toString());
        assertEquals(0, perf.exitCode(), perf.output());
        assertTrue(!perf.output().contains("building"), "nothing built: " + perf.output());
        assertTrue(perf.output().contains("# time: median of 2 repetitions"), perf.output());
        List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
        assertEquals(2, rows.size(), rows.toString());
        assertTrue(rows.get(1).startsWith("pingpong,tcp;ofi_rxm,2,8,"), rows.toString());
        assertEquals("0", rows.get(1).split(",")[9], "no wrong elements: " + rows);
    }

    @Test
    void ofinetLayoutShowsALayoutFromTheUnpackedTree(@TempDir Path dir) throws Exception {
        Path layout = dir.resolve("tcp.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"tcp\", \"dataRails\": [{\"provider\": \"tcp;ofi_rxm\","
                + " \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}");
        Run show = Run.of(dir, Map.of("OFINET_JAVA_HOME", System.getProperty("java.home")), 60,
                home.resolve("bin/ofinet-layout").toString(), layout.toString());
        assertEquals(0, show.exitCode(), show.output());
        assertTrue(show.output().contains("tcp;ofi_rxm"), show.output());
    }

    private static List<String> jars(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).sorted().toList();
        }
    }

    /** A command with a bound, its output (stdout and stderr) read from a file, and what it started killed. */
    record Run(int exitCode, String output) {
        static Run of(Path dir, Map<String, String> env, int seconds, String... command)
                throws IOException, InterruptedException {
            Path log = Files.createTempFile(dir, "run", ".log");
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean ended = p.waitFor(seconds, TimeUnit.SECONDS);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            if (!ended) {
                p.destroyForcibly();
                p.waitFor();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8) + (ended ? "" : "\n(killed after " + seconds + " s)");
            Files.delete(log);
            return new Run(ended ? p.exitValue() : -1, output);
        }
    }
}
