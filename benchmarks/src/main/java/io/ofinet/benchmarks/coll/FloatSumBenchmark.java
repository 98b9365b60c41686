package io.ofinet.benchmarks.coll;

import io.ofinet.benchmarks.fabric.CFloatSum;
import io.ofinet.tools.coll.FloatSum;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The collectives' reduction, {@code target += in} over float32 in direct buffers: {@link FloatSum}
 * every way, the plain loop over the buffers, and the C loop ({@code ofinet_sum.c}). 512 KiB is the
 * block a 1 MiB allreduce of two ranks sums. The fork adds the Vector API's module, which the
 * vector way needs (on JDK 25+).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-modules=jdk.incubator.vector")
public class FloatSumBenchmark {

    /** Two direct buffers of {@code bytes}; the target's values stay far from overflow and subnormals. */
    @State(Scope.Thread)
    public static class Buffers {
        @Param({"524288"})
        public int bytes;
        ByteBuffer target;
        ByteBuffer in;

        @Setup(Level.Trial)
        public void fill() {
            target = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            in = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            for (int i = 0; i < bytes / 4; i++) {
                target.putFloat(4 * i, i);
                in.putFloat(4 * i, 1);
            }
        }
    }

    /** One {@link FloatSum}: vector, fused or tiled. */
    @State(Scope.Thread)
    public static class Way {
        @Param({"vector", "fused", "tiled"})
        public String way;
        FloatSum sum;

        @Setup(Level.Trial)
        public void choose() {
            sum = new FloatSum(FloatSum.Way.valueOf(way.toUpperCase(java.util.Locale.ROOT)));
        }
    }

    /** The C loop. */
    @State(Scope.Benchmark)
    public static class C {
        CFloatSum sum;

        @Setup(Level.Trial)
        public void compile() throws Exception {
            sum = new CFloatSum();
        }
    }

    @Benchmark
    public void floatSum(Buffers b, Way way) {
        way.sum.add(b.target, b.in);
    }

    @Benchmark
    public void directLoop(Buffers b) {
        FloatBuffer t = b.target.asFloatBuffer();
        FloatBuffer x = b.in.asFloatBuffer();
        for (int i = 0, n = t.remaining(); i < n; i++) {
            t.put(i, t.get(i) + x.get(i));
        }
    }

    @Benchmark
    public void c(Buffers b, C c) {
        c.sum.add(b.target, b.in);
    }
}
