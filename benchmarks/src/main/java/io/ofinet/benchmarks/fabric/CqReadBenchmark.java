package io.ofinet.benchmarks.fabric;

import io.ofinet.fabric.ofi.NativeMemory;
import io.ofinet.fabric.ofi.DataPathProbe;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code fi_cq_read} on an empty completion queue: the call a progress loop makes most. The same
 * queue is read through the FFM and the JNA data path and by a C loop.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class CqReadBenchmark {
    static final int C_BATCH = 1000;

    /** The queue, a one-entry buffer, and the C loop. */
    @State(Scope.Thread)
    public static class Queue {
        BenchFabric fabric;
        long entry;
        CLoops c;

        @Setup(Level.Trial)
        public void open() throws Exception {
            fabric = new BenchFabric();
            entry = NativeMemory.allocate(64);
            c = new CLoops();
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            fabric.close();
            NativeMemory.free(entry);
        }
    }

    /** The data path under test. */
    @State(Scope.Thread)
    public static class Path {
        @Param({"ffm", "jna"})
        public String path;
        DataPathProbe.CqRead calls;

        @Setup(Level.Trial)
        public void choose(Queue queue) throws Exception {
            calls = DataPathProbe.cqRead(path, queue.fabric.endpoints.cqA);
        }
    }

    @Benchmark
    public long java(Queue queue, Path path) {
        return path.calls.read(queue.entry, 1);
    }

    @Benchmark
    @OperationsPerInvocation(C_BATCH)
    public long c(Queue queue) {
        long cq = DataPathProbe.fid(queue.fabric.endpoints.cqA);
        return queue.c.cqRead.invokeLong(new Object[] {cq, queue.entry, (long) C_BATCH});
    }
}
