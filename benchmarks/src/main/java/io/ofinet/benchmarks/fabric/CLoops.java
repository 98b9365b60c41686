package io.ofinet.benchmarks.fabric;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import java.io.IOException;

/**
 * The C loops ({@code ofinet_bench.c}, shipped as a resource), compiled with gcc against
 * libfabric-dev when a benchmark starts and called once per many iterations, so that the cost
 * of calling them from Java is spread thin.
 */
final class CLoops {
    final Function cqRead;
    final Function round;

    CLoops() throws IOException, InterruptedException {
        NativeLibrary lib = CompiledC.load("ofinet_bench", "-O2", "-lfabric");
        cqRead = lib.getFunction("ofinet_bench_cq_read");
        round = lib.getFunction("ofinet_bench_round");
    }
}
