package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * How the protocol's packages are put together (docs/DESIGN.md, "Packages"): the endpoint package,
 * {@code io.ofinet.rdma}, makes the parts and hands each the few collaborators it uses; nothing
 * else makes them. Read from the compiled classes (javap, through {@link ToolProvider}), so that a
 * construction counts wherever it is written.
 */
class ProtocolStructureTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String ENDPOINT_PACKAGE = "io.ofinet.rdma";
    /** The parts of an endpoint, which only the endpoint package makes. */
    private static final Set<String> PARTS = Set.of("io/ofinet/rdma/send/SendComm", "io/ofinet/rdma/recv/RecvComm",
            "io/ofinet/rdma/comm/CommParts", "io/ofinet/rdma/op/Ops", "io/ofinet/rdma/eager/EagerBuffers",
            "io/ofinet/rdma/rail/RailSet", "io/ofinet/rdma/rail/Peers", "io/ofinet/rdma/progress/ProgressEngine");
    /** The modules whose main classes may not make the parts (tests may, to test them). */
    private static final List<String> MODULES = List.of("rdma/protocol", "plugin/api", "plugin/ofi", "tools");
    private static final Pattern CLASS = Pattern.compile("^(?:[a-z]+ )*(?:class|interface|enum|record) ([\\w.$]+)");
    private static final Pattern NEW = Pattern.compile("\\bnew\\s+#\\d+\\s+// class ([\\w/$]+)");

    @Test
    void onlyTheEndpointPackageMakesTheParts() throws IOException {
        List<String> args = new ArrayList<>(List.of("-c", "-p"));
        for (String module : MODULES) {
            Path classes = ROOT.resolve(module).resolve("target/classes");
            assertTrue(Files.isDirectory(classes), "compiled classes of " + module + " at " + classes);
            try (Stream<Path> files = Files.walk(classes)) {
                files.filter(p -> p.toString().endsWith(".class")).map(Path::toString).forEach(args::add);
            }
        }
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow(() -> new AssertionError("no javap in this JDK"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
        assertEquals(0, status, "javap failed: " + err);

        Set<String> offenders = new TreeSet<>();
        Set<String> made = new TreeSet<>();
        String current = null;
        for (String line : out.toString().split("\\R")) {
            Matcher c = CLASS.matcher(line);
            if (c.find() && !line.startsWith(" ")) {
                current = c.group(1);
                continue;
            }
            Matcher n = NEW.matcher(line);
            if (n.find() && PARTS.contains(n.group(1))) {
                made.add(n.group(1));
                String pkg = current.substring(0, current.lastIndexOf('.'));
                if (!pkg.equals(ENDPOINT_PACKAGE)) {
                    offenders.add(current + " makes " + n.group(1).replace('/', '.'));
                }
            }
        }
        assertEquals(PARTS, made, "javap's output was understood: every part is made somewhere");
        assertEquals(Set.of(), offenders, "parts made outside " + ENDPOINT_PACKAGE);
    }

    private static final Pattern REACH = Pattern.compile("\\bendpoint\\.[a-zA-Z]+\\.[a-zA-Z]+");

    /**
     * The parts use what they were given, not the endpoint's fields: {@code endpoint.x.y} only in
     * {@code EndpointHost}, the endpoint as its communicators and kept receives see it.
     */
    @Test
    void nothingReachesThroughTheEndpointsFields() throws IOException {
        Path sources = ROOT.resolve("rdma/protocol/src/main/java");
        List<String> reaches = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.getFileName().toString().equals("EndpointHost.java")).sorted().toList()) {
                Matcher m = REACH.matcher(Files.readString(p));
                while (m.find()) {
                    reaches.add(sources.relativize(p) + ": " + m.group());
                }
            }
        }
        assertEquals(List.of(), reaches, "reaches through the endpoint's fields");
    }

    /** The protocol's classes stay small enough to read in one sitting. */
    @Test
    void noProtocolClassIsLong() throws IOException {
        Path sources = ROOT.resolve("rdma/protocol/src/main/java");
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(sources)) {
            tooLong = files.filter(p -> p.toString().endsWith(".java")).filter(p -> {
                try {
                    return Files.readAllLines(p).size() > MAX_LINES;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).map(p -> sources.relativize(p).toString()).sorted().collect(Collectors.toList());
        }
        assertEquals(List.of(), tooLong, "main classes of rdma/protocol over " + MAX_LINES + " lines");
    }

    private static final int MAX_LINES = 330;
}
