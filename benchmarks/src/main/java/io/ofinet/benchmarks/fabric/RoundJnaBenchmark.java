package io.ofinet.benchmarks.fabric;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/** {@link RoundBenchmark}'s round with the JNA data path forced ({@code -Dofinet.dataPath=jna}). */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dofinet.dataPath=jna"})
public class RoundJnaBenchmark {

    @Benchmark
    public void java(RoundBenchmark.Pair pair) throws Exception {
        pair.fabric.round();
    }
}
