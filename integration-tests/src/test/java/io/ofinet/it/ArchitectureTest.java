package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Build rules of docs/DESIGN.md that the compiler cannot check. The package rules read the compiled
 * dependencies of every main class (jdeps, through {@link ToolProvider}), so that a fully
 * qualified name counts as much as an import.
 */
class ArchitectureTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /**
     * The modules whose main classes the package rules cover. Benchmarks live in the binding's package
     * on purpose; plugin/nccl builds after this module (JDK 22+ only), is a leaf no package uses, and
     * uses the binding by design (the library's exit cleans the provider, its init loads libfabric).
     */
    private static final List<String> MODULES = List.of("config", "rdma/fabric", "rdma/fabric-mem", "mr",
            "rdma/protocol", "plugin/api", "plugin/ofi", "tools");
    private static final String BINDING = "io.ofinet.fabric.ofi";
    /**
     * Who may use the libfabric binding: its own module (the provider boundary, the in-memory
     * provider, which moves real host memory as the binding does), and the places that choose the
     * binding: the plugin, which makes the OfiProvider and its discovery, and the layout command,
     * which asks the same discovery and provider what they offer.
     */
    private static final List<String> BINDING_USERS = List.of("io.ofinet.fabric", "io.ofinet.fabric.mem",
            "io.ofinet.plugin.ofi", "io.ofinet.tools.layout");
    private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)(\\s+.*)?$");

    /** Package dependencies of the main classes: package -> packages it uses (io.ofinet and JNA only). */
    private static Map<String, Set<String>> packageDependencies() {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        List<String> args = new ArrayList<>(List.of("-verbose:package", "-regex", "io\\.ofinet\\..*|com\\.sun\\.jna.*"));
        for (String module : MODULES) {
            Path classes = ROOT.resolve(module).resolve("target/classes");
            assertTrue(Files.isDirectory(classes), "compiled classes of " + module + " at " + classes);
            args.add(classes.toString());
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = jdeps.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
        assertEquals(0, status, "jdeps failed: " + err);
        Map<String, Set<String>> edges = new TreeMap<>();
        for (String line : out.toString().split("\\R")) {
            Matcher m = EDGE.matcher(line);
            if (m.matches() && m.group(1).startsWith("io.ofinet.") && !m.group(1).equals(m.group(2))) {
                edges.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
            }
        }
        assertTrue(edges.containsKey("io.ofinet.rdma") && edges.get("io.ofinet.rdma").contains("io.ofinet.mr"),
                "jdeps output was understood:\n" + out);
        return edges;
    }

    @Test
    void noCycleAmongPackages() {
        Map<String, Set<String>> edges = packageDependencies();
        List<List<String>> cycles = new Cycles(edges).find();
        assertEquals(List.of(), cycles, "package cycles (each a strongly connected set of io.ofinet packages)");
    }

    @Test
    void theBindingIsUsedOnlyByItsModuleAndThePlaceThatChoosesIt() {
        List<String> offenders = new ArrayList<>();
        packageDependencies().forEach((from, to) -> {
            if (to.contains(BINDING) && !from.equals(BINDING) && !BINDING_USERS.contains(from)) {
                offenders.add(from + " -> " + BINDING);
            }
            to.stream().filter(p -> p.startsWith("com.sun.jna") && !from.equals(BINDING))
                    .forEach(p -> offenders.add(from + " -> " + p));
        });
        assertEquals(List.of(), offenders, "only " + BINDING + " uses JNA, and only " + BINDING_USERS
                + " use the binding");
    }

    /** Strongly connected components of more than one package (Tarjan). */
    private static final class Cycles {
        private final Map<String, Set<String>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();
        private final List<List<String>> found = new ArrayList<>();
        private int next;

        Cycles(Map<String, Set<String>> edges) {
            this.edges = edges;
        }

        List<List<String>> find() {
            for (String node : edges.keySet()) {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            }
            return found;
        }

        private void visit(String node) {
            index.put(node, next);
            low.put(node, next++);
            stack.push(node);
            onStack.add(node);
            for (String target : edges.getOrDefault(node, Set.of())) {
                if (!target.startsWith("io.ofinet.")) {
                    continue;
                }
                if (!index.containsKey(target)) {
                    visit(target);
                    low.put(node, Math.min(low.get(node), low.get(target)));
                } else if (onStack.contains(target)) {
                    low.put(node, Math.min(low.get(node), index.get(target)));
                }
            }
            if (low.get(node).equals(index.get(node))) {
                List<String> component = new ArrayList<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                if (component.size() > 1) {
                    component.sort(null);
                    found.add(component);
                }
            }
        }
    }
    /**
     * Native code: JNA, and FFM's foreign calls and raw addresses (its restricted methods). A memory
     * segment over a Java buffer, as the Vector API reads and writes one, touches none.
     */
    private static final Pattern NATIVE_IMPORT = Pattern.compile(
            "^import\\s+(static\\s+)?(com\\.sun\\.jna|java\\.lang\\.foreign\\.(Linker|SymbolLookup|FunctionDescriptor"
                    + "|AddressLayout|Arena)\\b|java\\.lang\\.foreign\\.\\*)"
                    + "|\\.reinterpret\\(|MemorySegment\\.ofAddress\\(", Pattern.MULTILINE);

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .collect(Collectors.toList());
        }
    }

    /**
     * The libfabric binding, the C door (plugin/nccl), whose whole work is the crossing from NCCL's
     * C table into Java: upcall stubs and NCCL's memory by address, and the benchmarks' C twins,
     * which compile C loops and call them to compare.
     */
    @Test
    void onlyTheBindingAndTheCDoorTouchNativeCode() throws IOException {
        List<Path> sources = mainSources();
        assertTrue(sources.size() > 10, "found the sources under " + ROOT);
        List<String> offenders = sources.stream()
                .filter(p -> !p.toString().contains("/io/ofinet/fabric/ofi/"))
                .filter(p -> !p.toString().contains("/plugin/nccl/src/main/java/io/ofinet/nccl/"))
                .filter(p -> !p.toString().contains("/benchmarks/src/main/java/io/ofinet/benchmarks/"))
                .filter(p -> {
                    try {
                        return NATIVE_IMPORT.matcher(Files.readString(p)).find();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .map(p -> ROOT.relativize(p).toString())
                .collect(Collectors.toList());
        assertEquals(List.of(), offenders, "JNA or FFM imported outside io.ofinet.fabric.ofi, io.ofinet.nccl and the benchmarks");
    }

    /** A provider's name compared in code: a string literal of one, with equals, contains, startsWith or endsWith. */
    private static final Pattern PROVIDER_NAME_COMPARED = Pattern.compile(
            "\"(shm|tcp|udp|sockets|verbs|efa|cxi|psm[23]?|opx|ofi_rxm|ofi_rxd|ofi_mrail|ofi_hook[a-z_]*)\""
                    + "\\s*(::\\s*equals|\\.\\s*equals)"
                    + "|(equals|contains|startsWith|endsWith)\\(\\s*\"(shm|tcp|udp|sockets|verbs|efa|cxi|psm[23]?|opx"
                    + "|ofi_rxm|ofi_rxd|ofi_mrail|ofi_hook[a-z_]*)\"");

    /**
     * Every "does this provider ..." question of the library is asked of {@code ProviderPolicy}, in
     * the fabric layer. The tools (ofinet-perf) name providers to build a layout, and are not the
     * library.
     */
    @Test
    void onlyTheProviderPolicyComparesProviderNames() throws IOException {
        List<String> offenders = mainSources().stream()
                .filter(p -> !p.getFileName().toString().equals("ProviderPolicy.java"))
                .filter(p -> !ROOT.relativize(p).startsWith("tools") && !ROOT.relativize(p).startsWith("benchmarks"))
                .filter(p -> {
                    try {
                        return PROVIDER_NAME_COMPARED.matcher(Files.readString(p)).find();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .map(p -> ROOT.relativize(p).toString())
                .collect(Collectors.toList());
        assertEquals(List.of(), offenders, "provider names compared outside io.ofinet.fabric.ProviderPolicy");
    }

    @Test
    void pluginApiHasNoDependencies() throws IOException {
        String pom = Files.readString(ROOT.resolve("plugin/api/pom.xml"));
        Matcher dependency = Pattern.compile("<dependency>").matcher(pom);
        assertTrue(!dependency.find(), "plugin/api must not depend on anything: " + pom);
    }
}
