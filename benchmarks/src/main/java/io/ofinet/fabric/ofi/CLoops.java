package io.ofinet.fabric.ofi;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The C loops ({@code ofinet_bench.c}, shipped as a resource), compiled with gcc against
 * libfabric-dev when a benchmark starts and called once per many iterations, so that the cost
 * of calling them from Java is spread thin.
 */
final class CLoops {
    final Function cqRead;
    final Function round;

    CLoops() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("ofinet-bench");
        Path source = dir.resolve("ofinet_bench.c");
        try (InputStream in = CLoops.class.getResourceAsStream("/ofinet_bench.c")) {
            Files.copy(in, source);
        }
        Path library = dir.resolve("libofinet_bench.so");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-shared", "-fPIC", "-o", library.toString(),
                source.toString(), "-lfabric").redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            throw new IllegalStateException("gcc failed (gcc and libfabric-dev are needed:"
                    + " bin/install-deps):\n" + out);
        }
        NativeLibrary lib = NativeLibrary.getInstance(library.toString());
        cqRead = lib.getFunction("ofinet_bench_cq_read");
        round = lib.getFunction("ofinet_bench_round");
    }
}
