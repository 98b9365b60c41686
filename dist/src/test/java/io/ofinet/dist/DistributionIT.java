package io.ofinet.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as a user gets it: unpacked into a directory of its own, away from the source tree,
 * its launcher runs a pingpong over real tcp on loopback, and NCCL's library loads from its lib/
 * with the jars it needs beside it, the Java runtime it starts and the AOT cache of their classes.
 * The library's runs get a bare environment: what NCCL's host would pass, and a PATH with no java.
 */
@Timeout(300)
class DistributionIT {
    private static final Path TARBALL = Path.of(System.getProperty("ofinet.dist.tarball", "missing.tar.gz"));
    private static final String NAME = System.getProperty("ofinet.dist.name", "ofinet");
    private static final Path DRIVER = Path.of(System.getProperty("ofinet.nccl.driver", "nccl_driver"));
    /** What -Xlog:class+load says of ofinet's bridge class when it came from the AOT cache. */
    private static final String BRIDGE_FROM_CACHE = "io.ofinet.nccl.NcclBridge source: shared objects file";
    /** The same of the FFM data path, which its jar holds in a versions directory until the build flattens it. */
    private static final String DATA_PATH_FROM_CACHE = "io.ofinet.fabric.ofi.FfmDataPath source: shared objects file";
    /** The build's JDK, which runs this test, makes the AOT cache in one step from Java 25 on. */
    private static final boolean MAKES_AOT_CACHES = Runtime.version().feature() >= 25;
    /** The modules of the bundled runtime, in jlink's order: plugin/nccl/pom.xml's ofinet.runtime.modules. */
    private static final List<String> RUNTIME_MODULES = List.of("java.base", "java.logging", "java.management",
            "jdk.management");
    /**
     * What jdeps finds in lib/ofinet's jars and the runtime leaves out: JNA's AWT helpers, not on
     * ofinet's paths (plugin/nccl's driver tests run on the runtime).
     */
    private static final Set<String> LEFT_OUT_MODULES = Set.of("java.desktop");
    private static final String BUNDLED = " (the runtime bundled with ofinet)";

    @TempDir
    static Path unpacked;
    private static Path home;
    /** lib/ofinet/runtime by its real path, as the library names it. */
    private static Path runtime;

    @BeforeAll
    static void unpack() throws Exception {
        Run tar = Run.of(unpacked, Map.of(), 60, "tar", "xzf", TARBALL.toString());
        assertEquals(0, tar.exitCode(), tar.output());
        home = unpacked.resolve(NAME);
        assertTrue(Files.isDirectory(home), "the tarball unpacks into " + NAME + "/");
        runtime = home.resolve("lib/ofinet/runtime").toRealPath();
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
                "ofinet-config-", "ofinet-mr-", "jna-", "picocli-")) {
            assertTrue(java.stream().anyMatch(j -> j.startsWith(prefix)), prefix + "*.jar in lib/java: " + java);
        }
        List<String> nccl = jars(home.resolve("lib/ofinet"));
        for (String prefix : List.of("ofinet-nccl-", "ofinet-plugin-", "ofinet-rdma-", "ofinet-config-", "jna-")) {
            assertTrue(nccl.stream().anyMatch(j -> j.startsWith(prefix)), prefix + "*.jar in lib/ofinet: " + nccl);
        }
        assertTrue(java.stream().noneMatch(j -> j.startsWith("jackson-")) && nccl.stream().noneMatch(j -> j.startsWith(
                "jackson-")), "no JSON library: ofinet reads its layouts itself: " + java + ", " + nccl);
        assertTrue(Files.isRegularFile(home.resolve("lib/ofinet/libjnidispatch.so")),
                "JNA's native library unpacked beside the jars: JNA need not unpack it at each start");
        for (String file : List.of("bin/java", "lib/jspawnhelper")) {
            assertTrue(Files.isExecutable(runtime.resolve(file)), "the runtime's " + file + " is executable");
        }
        assertTrue(Files.isRegularFile(runtime.resolve("lib/server/libjvm.so")), "the runtime's libjvm.so");
    }

    /**
     * The runtime holds the modules ofinet needs and no other (its release file, and its java's own
     * list), covers what jdeps finds in lib/ofinet's jars but the optional modules ofinet does not
     * reach, keeps OpenJDK's legal notices for each module, and has no headers, man pages or jmods.
     */
    @Test
    void theBundledRuntimeHoldsOnlyTheModulesOfinetNeedsAndTheLegalNotices() throws Exception {
        String release = Files.readString(runtime.resolve("release"));
        assertTrue(release.lines().anyMatch(l -> l.equals("MODULES=\"" + String.join(" ", RUNTIME_MODULES) + "\"")),
                release);
        Run list = Run.of(runtime, Map.of(), 60, runtime.resolve("bin/java").toString(), "--list-modules");
        assertEquals(0, list.exitCode(), list.output());
        assertEquals(Set.copyOf(RUNTIME_MODULES), list.output().lines().map(l -> l.replaceAll("@.*", ""))
                .collect(Collectors.toSet()), list.output());
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jdeps")
                .toString(), "--list-deps", "--ignore-missing-deps", "--multi-release", "" + Runtime.version().feature()));
        command.addAll(jars(home.resolve("lib/ofinet")));
        Run jdeps = Run.of(home.resolve("lib/ofinet"), Map.of(), 120, command.toArray(String[]::new));
        assertEquals(0, jdeps.exitCode(), jdeps.output());
        Set<String> needed = jdeps.output().lines().map(String::trim).filter(l -> !l.isEmpty())
                .filter(m -> !LEFT_OUT_MODULES.contains(m)).collect(Collectors.toSet());
        assertTrue(RUNTIME_MODULES.containsAll(needed), "jdeps finds " + needed + ":\n" + jdeps.output());
        for (String module : RUNTIME_MODULES) {
            assertTrue(Files.isRegularFile(runtime.resolve("legal").resolve(module).resolve("LICENSE")),
                    "legal/" + module + "/LICENSE");
        }
        assertTrue(Files.isRegularFile(runtime.resolve("legal/java.base/ASSEMBLY_EXCEPTION")), "legal/java.base");
        for (String absent : List.of("include", "man", "jmods")) {
            assertFalse(Files.exists(runtime.resolve(absent)), absent + " left out");
        }
    }

    @Test
    void theLibraryExportsNcclsTable() throws Exception {
        Run nm = Run.of(home, Map.of(), 30, "nm", "-D", "--defined-only", "lib/libnccl-net-ofinet.so");
        assertEquals(0, nm.exitCode(), nm.output());
        assertTrue(nm.output().lines().anyMatch(l -> l.matches("\\S+ D ncclNetPlugin_v12")), nm.output());
    }

    /**
     * NCCL's way in on a node with no Java: the library found through LD_LIBRARY_PATH=lib (the only
     * directory given, so the tarball's copy), with no JAVA_HOME, no OFINET_JAVA_HOME and no java on
     * the PATH, starts the runtime in lib/ofinet/runtime over lib/ofinet's jars; plugin/nccl's C
     * driver plays NCCL, two ranks through the whole table over tcp.
     */
    @Test
    void ncclsLibraryRunsTwoRanksOnItsBundledRuntimeWithNoOtherJava(@TempDir Path dir) throws Exception {
        assertTrue(Files.isExecutable(DRIVER), "plugin/nccl's C driver is built: " + DRIVER);
        Run pair = driver(dir, home.resolve("lib"), Map.of(), 240, "pair");
        assertEquals(0, pair.exitCode(), pair.output());
        assertTrue(pair.output().contains("pair: receiver passed, sender passed"), pair.output());
        assertEquals(2, pair.output().lines().filter(l -> l.contains("VM from " + runtime + BUNDLED)).count(),
                "both ranks on the bundled runtime:\n" + pair.output());
    }

    /** JAVA_HOME, here a Java 17 that could not run the library, does not outrank the bundled runtime. */
    @Test
    void javaHomeDoesNotOutrankTheBundledRuntime(@TempDir Path dir) throws Exception {
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        assumeTrue(Files.isRegularFile(java17.resolve("release")), "no Java 17 installed here");
        Run init = init(dir, home.resolve("lib"), Map.of("JAVA_HOME", java17.toString()));
        assertEquals(0, init.exitCode(), init.output());
        assertTrue(init.output().contains("init: result 0"), init.output());
        assertTrue(init.output().contains("VM from " + runtime + BUNDLED), init.output());
        assertTrue(init.output().contains("ofinet initialised: 1 device(s)"), init.output());
    }

    /**
     * OFINET_JAVA_HOME outranks the bundled runtime and is named; the AOT cache, made on the bundled
     * runtime, is not handed to that JDK (its .id names the runtime's modules), and init succeeds
     * from the jars without a word about it.
     */
    @Test
    void ofinetJavaHomeOutranksTheBundledRuntime(@TempDir Path dir) throws Exception {
        String jdk = System.getProperty("java.home");
        Run init = init(dir, home.resolve("lib"), Map.of("OFINET_JAVA_HOME", jdk, "OFINET_JVM_OPTIONS",
                "-Xlog:class+load"));
        assertEquals(0, init.exitCode(), init.output());
        assertTrue(init.output().contains("init: result 0"), init.output());
        assertTrue(init.output().contains("VM from " + jdk + " (OFINET_JAVA_HOME)"), init.output());
        assertFalse(init.output().contains(BUNDLED), init.output());
        assertFalse(init.output().contains(BRIDGE_FROM_CACHE), init.output());
        if (MAKES_AOT_CACHES) {
            assertTrue(init.output().contains("not used: it was made by another Java runtime"), init.output());
        }
    }

    /**
     * The AOT cache made where the library was built serves the unpacked copy on its bundled
     * runtime: HotSpot opens it from lib/, links its classes ahead of time and takes ofinet's own
     * from it, not from the jars: the bridge, and the FFM data path, which HotSpot takes into a
     * cache only from a jar's root.
     */
    @Test
    void initTakesOfinetsClassesFromTheAotCacheInLib(@TempDir Path dir) throws Exception {
        assumeTrue(MAKES_AOT_CACHES, "no AOT cache: the build's JDK is older than 25");
        Path cache = home.resolve("lib/libnccl-net-ofinet.aot").toRealPath();
        Run init = init(dir, home.resolve("lib"), Map.of("OFINET_JVM_OPTIONS", "-Xlog:aot -Xlog:class+load"));
        assertEquals(0, init.exitCode(), init.output());
        assertTrue(init.output().contains("AOT cache " + cache + ": handed to the JVM"), init.output());
        assertTrue(init.output().contains("Opened AOT cache " + cache), init.output());
        assertTrue(init.output().contains("Using AOT-linked classes: true"), init.output());
        assertTrue(init.output().contains(BRIDGE_FROM_CACHE), init.output());
        assertTrue(init.output().contains(DATA_PATH_FROM_CACHE), init.output());
        assertTrue(init.output().contains("VM from " + runtime + BUNDLED), init.output());
        Run off = init(dir, home.resolve("lib"), Map.of("OFINET_JVM_OPTIONS", "-Xlog:class+load", "OFINET_AOT_CACHE",
                "off"));
        assertEquals(0, off.exitCode(), off.output());
        assertFalse(off.output().contains(BRIDGE_FROM_CACHE) || off.output().contains("AOT cache"), off.output());
    }

    /**
     * A runtime other than the one that made the cache (here the build's full JDK, of the same
     * build: the .id names the modules) gets none, and HotSpot itself refuses it, quietly, when it is
     * handed all the same (OFINET_AOT_CACHE, which skips the .id): its modules image differs. A cache
     * HotSpot refuses on the bundled runtime (here its record of the JVM's build altered) is dropped
     * without a word on the host's output too. Init succeeds from the jars each time.
     */
    @Test
    void anotherRuntimeOrACacheHotSpotRefusesFallsBackQuietly(@TempDir Path dir) throws Exception {
        assumeTrue(MAKES_AOT_CACHES, "no AOT cache: the build's JDK is older than 25");
        String jdk = System.getProperty("java.home");
        Path cache = home.resolve("lib/libnccl-net-ofinet.aot").toRealPath();
        Run otherJdk = init(dir, home.resolve("lib"), Map.of("OFINET_JAVA_HOME", jdk, "OFINET_JVM_OPTIONS",
                "-Xlog:class+load"));
        assertEquals(0, otherJdk.exitCode(), otherJdk.output());
        assertTrue(otherJdk.output().contains("not used: it was made by another Java runtime"), otherJdk.output());
        assertFalse(otherJdk.output().contains(BRIDGE_FROM_CACHE), otherJdk.output());

        Run handed = init(dir, home.resolve("lib"), Map.of("OFINET_JAVA_HOME", jdk, "OFINET_AOT_CACHE",
                cache.toString()));
        assertEquals(0, handed.exitCode(), handed.output());
        assertTrue(handed.output().contains("handed to the JVM"), handed.output());
        assertQuiet(handed);
        Run handedLogged = init(dir, home.resolve("lib"), Map.of("OFINET_JAVA_HOME", jdk, "OFINET_AOT_CACHE",
                cache.toString(), "OFINET_JVM_OPTIONS", "-Xlog:aot -Xlog:class+load"));
        assertEquals(0, handedLogged.exitCode(), handedLogged.output());
        assertTrue(handedLogged.output().contains("This file is not the one used while building the shared archive"
                + " file: '" + jdk + "/lib/modules', size has changed"), handedLogged.output());
        assertFalse(handedLogged.output().contains(BRIDGE_FROM_CACHE), handedLogged.output());

        Path lib = dir.resolve("lib");
        Run copy = Run.of(dir, Map.of(), 60, "cp", "-a", home.resolve("lib").toString(), lib.toString());
        assertEquals(0, copy.exitCode(), copy.output());
        alterTheJvmsBuildIn(lib.resolve("libnccl-net-ofinet.aot"));
        Run refused = init(dir, lib, Map.of());
        assertEquals(0, refused.exitCode(), refused.output());
        assertTrue(refused.output().contains("handed to the JVM"), refused.output());
        assertTrue(refused.output().contains(BUNDLED), refused.output());
        assertQuiet(refused);
        Run logged = init(dir, lib, Map.of("OFINET_JVM_OPTIONS", "-Xlog:aot -Xlog:class+load"));
        assertEquals(0, logged.exitCode(), logged.output());
        assertTrue(logged.output().contains("The AOT cache was created by a different version or build of HotSpot"),
                logged.output());
        assertFalse(logged.output().contains(BRIDGE_FROM_CACHE), logged.output());
    }

    /** Nothing of HotSpot's refusal of a cache on the host's output. */
    private static void assertQuiet(Run run) {
        assertFalse(run.output().contains("[warning]") || run.output().contains("[error")
                || run.output().contains("AOT cache was created") || run.output().contains("shared archive"),
                "quiet:\n" + run.output());
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

    /** plugin/nccl's C driver's init through the library in lib, as {@link #driver}. */
    private static Run init(Path dir, Path lib, Map<String, String> env) throws Exception {
        return driver(dir, lib, env, 60, "init");
    }

    /**
     * plugin/nccl's C driver through the library in lib, in an environment of its own: the library's
     * directory, a one-rail tcp layout on loopback, a PATH with nothing on it, and env.
     */
    private static Run driver(Path dir, Path lib, Map<String, String> env, int seconds, String... args)
            throws Exception {
        Path layout = dir.resolve("tcp.json");
        Files.writeString(layout, "{\"devices\": [{\"name\": \"tcp\", \"dataRails\": [{\"provider\": \"tcp;ofi_rxm\","
                + " \"domain\": \"lo\", \"srcAddr\": \"127.0.0.1\"}]}]}");
        Path emptyPath = Files.createDirectories(dir.resolve("empty-path"));
        Map<String, String> all = new HashMap<>(Map.of("LD_LIBRARY_PATH", lib.toString(), "OFINET_LAYOUT",
                layout.toString(), "PATH", emptyPath.toString()));
        all.putAll(env);
        List<String> command = new ArrayList<>(List.of(DRIVER.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        return Run.only(dir, all, seconds, command.toArray(String[]::new));
    }

    /**
     * The launcher starts the runtime the library starts, before JAVA_HOME (here a Java 17 where one
     * is installed, else the build's JDK) and the java on the PATH, and ofinet-perf names it.
     */
    @Test
    void ofinetPerfRunsAPingpongFromTheUnpackedTreeOnTheBundledRuntime(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("run.csv");
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        String javaHome = Files.isRegularFile(java17.resolve("release")) ? java17.toString()
                : System.getProperty("java.home");
        Run perf = Run.without(dir, "OFINET_JAVA_HOME", Map.of("JAVA_HOME", javaHome), 240,
                home.resolve("bin/ofinet-perf").toString(), "pingpong", "--provider", "tcp;ofi_rxm", "--sizes=8",
                "--warmup", "10", "--iters", "20", "--reps", "2", "--csv", csv.toString());
        assertEquals(0, perf.exitCode(), perf.output());
        assertTrue(perf.output().lines().anyMatch(l -> l.startsWith("# Java ") && (l.endsWith(" at " + runtime)
                || l.endsWith(" at " + home.resolve("lib/ofinet/runtime")))), "on the bundled runtime: " + perf.output());
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
        Run show = Run.without(dir, "OFINET_JAVA_HOME", Map.of(), 60, home.resolve("bin/ofinet-layout").toString(),
                layout.toString());
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
        /** The command in this process's environment with env added. */
        static Run of(Path dir, Map<String, String> env, int seconds, String... command)
                throws IOException, InterruptedException {
            return run(dir, false, env, seconds, command);
        }

        /** The command in this process's environment with the variable {@code unset} removed and env added. */
        static Run without(Path dir, String unset, Map<String, String> env, int seconds, String... command)
                throws IOException, InterruptedException {
            Map<String, String> all = new HashMap<>(System.getenv());
            all.remove(unset);
            all.putAll(env);
            return run(dir, true, all, seconds, command);
        }

        /** The command in env alone. */
        static Run only(Path dir, Map<String, String> env, int seconds, String... command)
                throws IOException, InterruptedException {
            return run(dir, true, env, seconds, command);
        }

        private static Run run(Path dir, boolean bare, Map<String, String> env, int seconds, String... command)
                throws IOException, InterruptedException {
            Path log = Files.createTempFile(dir, "run", ".log");
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            if (bare) {
                pb.environment().clear();
            }
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
