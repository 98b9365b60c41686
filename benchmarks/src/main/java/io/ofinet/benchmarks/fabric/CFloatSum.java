package io.ofinet.benchmarks.fabric;

import com.sun.jna.Function;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The C twin of the collective engine's reduction ({@code ofinet_sum.c}): {@code target += in}
 * over float32, for {@code FloatSumBenchmark}.
 */
public final class CFloatSum {
    private final Function add;

    /** Compiles and loads the C loop (gcc -O3). */
    public CFloatSum() throws IOException, InterruptedException {
        add = CompiledC.load("ofinet_sum", "-O3").getFunction("ofinet_sum_add");
    }

    /** Adds {@code in} to {@code target}, both direct, from their starts, over {@code target}'s capacity. */
    public void add(ByteBuffer target, ByteBuffer in) {
        if (in.capacity() < target.capacity()) {
            throw new IllegalArgumentException(in.capacity() + " bytes of addends for " + target.capacity());
        }
        add.invoke(new Object[] {Native.getDirectBufferPointer(target), Native.getDirectBufferPointer(in),
            (long) (target.capacity() / 4)});
    }
}
