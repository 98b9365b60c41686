package io.ofinet.benchmarks.fabric;

import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The C twins of the benchmarks: a C source shipped as a resource, compiled with gcc when a benchmark starts. */
final class CompiledC {
    private CompiledC() {
    }

    /**
     * Compiles resource {@code /name.c} into a shared library and loads it.
     *
     * @param gccArgs options and libraries for gcc, after the source
     */
    static NativeLibrary load(String name, String... gccArgs) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("ofinet-bench");
        Path source = dir.resolve(name + ".c");
        try (InputStream in = CompiledC.class.getResourceAsStream("/" + name + ".c")) {
            if (in == null) {
                throw new IOException("no resource /" + name + ".c");
            }
            Files.copy(in, source);
        }
        Path library = dir.resolve("lib" + name + ".so");
        List<String> command = new ArrayList<>(List.of("gcc", "-shared", "-fPIC", "-o", library.toString(),
                source.toString()));
        command.addAll(List.of(gccArgs));
        Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IllegalStateException("gcc failed (gcc and libfabric-dev are needed:"
                    + " bin/install-deps):\n" + out);
        }
        return NativeLibrary.getInstance(library.toString());
    }
}
