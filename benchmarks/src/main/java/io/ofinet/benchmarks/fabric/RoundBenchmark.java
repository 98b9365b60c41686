package io.ofinet.benchmarks.fabric;

import io.ofinet.fabric.ofi.DataPathProbe;
import io.ofinet.fabric.testing.EndpointPair;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A {@code senddata}/{@code recv} round between two endpoints: b posts a receive, a sends 8 bytes
 * with immediate data, and both queues are polled to their completions. Through ofinet's public
 * endpoint API on the JDK's data path (FFM on JDK 22+), and by a C loop on the same endpoints.
 * {@link RoundJnaBenchmark} runs the same round with the JNA data path forced.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RoundBenchmark {
    static final int C_BATCH = 100;

    /** Two connected endpoints and the C loop. */
    @State(Scope.Thread)
    public static class Pair {
        BenchFabric fabric;
        CLoops c;

        @Setup(Level.Trial)
        public void open() throws Exception {
            fabric = new BenchFabric();
            c = new CLoops();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            fabric.close();
        }
    }

    @Benchmark
    public void java(Pair pair) throws Exception {
        pair.fabric.round();
    }

    @Benchmark
    @OperationsPerInvocation(C_BATCH)
    public long c(Pair pair) {
        EndpointPair f = pair.fabric.endpoints;
        long rc = pair.c.round.invokeLong(new Object[] {DataPathProbe.fid(f.a), DataPathProbe.fid(f.cqA),
            DataPathProbe.fid(f.b), DataPathProbe.fid(f.cqB), f.bufA, f.mrA.descriptor(), f.bufB, f.mrB.descriptor(),
            f.aToB, (long) C_BATCH});
        if (rc != 0) {
            throw new IllegalStateException("C round failed: " + rc);
        }
        return rc;
    }
}
