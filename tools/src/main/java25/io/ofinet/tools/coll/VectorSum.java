package io.ofinet.tools.coll;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code target += in} through the Vector API ({@code jdk.incubator.vector}), straight into the
 * target: the widest vectors the CPU has, then the last few elements one by one. The module is an
 * incubator one, so it is there only when the JVM was started with
 * {@code --add-modules=jdk.incubator.vector}; {@link Kernel} is loaded only then.
 */
final class VectorSum {
    static final String MODULE = "jdk.incubator.vector";
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule(MODULE).isPresent();

    private VectorSum() {
    }

    /** Why this JVM has no Vector API way, or null if it has one. */
    static String unavailable() {
        return AVAILABLE ? null : "the Vector API way needs the JVM option --add-modules=" + MODULE;
    }

    /** Adds {@code in} to {@code target} from both buffers' positions to {@code target}'s limit. */
    static void add(ByteBuffer target, ByteBuffer in) {
        if (!AVAILABLE) {
            throw new UnsupportedOperationException(unavailable());
        }
        Kernel.add(target, in);
    }

    private static final class Kernel {
        private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
        private static final ByteOrder ORDER = ByteOrder.nativeOrder();
        private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ORDER);

        static void add(ByteBuffer target, ByteBuffer in) {
            MemorySegment t = MemorySegment.ofBuffer(target);
            MemorySegment x = MemorySegment.ofBuffer(in);
            long bytes = t.byteSize() & ~3L;
            long step = SPECIES.vectorByteSize();
            long whole = bytes - bytes % step;
            long i = 0;
            for (; i < whole; i += step) {
                FloatVector.fromMemorySegment(SPECIES, t, i, ORDER)
                        .add(FloatVector.fromMemorySegment(SPECIES, x, i, ORDER))
                        .intoMemorySegment(t, i, ORDER);
            }
            for (; i < bytes; i += 4) {
                t.set(FLOAT, i, t.get(FLOAT, i) + x.get(FLOAT, i));
            }
        }
    }
}
