package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Build rules of DESIGN.md that the compiler cannot check. */
class ArchitectureTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern NATIVE_IMPORT =
            Pattern.compile("^import\\s+(static\\s+)?(com\\.sun\\.jna|java\\.lang\\.foreign)", Pattern.MULTILINE);

    private static List<Path> mainSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/main/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .collect(Collectors.toList());
        }
    }

    @Test
    void onlyTheOfiPackageTouchesNativeCode() throws IOException {
        List<Path> sources = mainSources();
        assertTrue(sources.size() > 10, "found the sources under " + ROOT);
        List<String> offenders = sources.stream()
                .filter(p -> !p.toString().contains("/io/ofinet/fabric/ofi/"))
                .filter(p -> {
                    try {
                        return NATIVE_IMPORT.matcher(Files.readString(p)).find();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                })
                .map(p -> ROOT.relativize(p).toString())
                .collect(Collectors.toList());
        assertEquals(List.of(), offenders, "JNA or FFM imported outside io.ofinet.fabric.ofi");
    }

    @Test
    void pluginApiHasNoDependencies() throws IOException {
        String pom = Files.readString(ROOT.resolve("plugin/api/pom.xml"));
        Matcher dependency = Pattern.compile("<dependency>").matcher(pom);
        assertTrue(!dependency.find(), "plugin/api must not depend on anything: " + pom);
    }
}
