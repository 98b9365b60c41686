package io.ofinet.tools.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ofinet.fabric.testing.ChildJvm;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every way of {@link FloatSum}, from the multi-release jar (the Vector API way is in its classes
 * for Java 25, and the test JVM adds the module on JDK 25+, where the first test checks that the way
 * is there; before Java 25 the vector cases are skipped).
 */
class FloatSumIT {
    @Test
    void theVectorApiWayIsThereOnJava25WithTheModule() {
        if (Runtime.version().feature() >= 25) {
            assertNull(VectorSum.unavailable());
            assertEquals(FloatSum.Way.VECTOR, FloatSum.best());
        } else {
            assertEquals(FloatSum.Way.TILED, FloatSum.best());
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                    () -> new FloatSum(FloatSum.Way.VECTOR));
            assertEquals(VectorSum.unavailable(), e.getMessage());
        }
        assertEquals(FloatSum.best().toString(), new FloatSum().toString());
    }

    /** A JVM started without the module, as a framework's would be: the fused way, and a refusal that says why. */
    @Test
    void withoutTheModuleTheFusedWayIsTakenAndTheVectorWayRefusedSayingWhy() throws Exception {
        assumeTrue(Runtime.version().feature() >= 25, "the vector way exists from Java 25");
        try (ChildJvm child = new ChildJvm.Spec(Probe.class).bound(Duration.ofSeconds(60)).start()) {
            assertEquals(0, child.waitFor(), child.output());
            assertTrue(child.output().contains("best: fused"), child.output());
            assertTrue(child.output().contains("refused: the Vector API way needs the JVM option"
                    + " --add-modules=jdk.incubator.vector"), child.output());
        }
    }

    /** Prints which way a JVM takes, and what asking for the vector way says there. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println("best: " + FloatSum.best());
            try {
                new FloatSum(FloatSum.Way.VECTOR);
                System.out.println("vector way accepted");
            } catch (UnsupportedOperationException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FloatSum.Way.class)
    void addsEveryElementAcrossTileAndVectorBoundariesAndNothingElse(FloatSum.Way way) {
        assumeTrue(way != FloatSum.Way.VECTOR || VectorSum.unavailable() == null, "before Java 25");
        FloatSum sum = new FloatSum(way);
        for (int elements : new int[] {0, 1, 7, 8, 9, 17, FloatSum.TILE - 1, FloatSum.TILE, FloatSum.TILE + 1,
                5 * FloatSum.TILE + 7}) {
            // Element i of the target buffer holds 1000 + i, of the addends' buffer i / 4. The target
            // region starts at element 2, the addends' at element 3; both end short of their buffers.
            ByteBuffer targets = filled(elements + 6, i -> 1000 + i);
            ByteBuffer addends = filled(elements + 6, i -> i / 4f);
            sum.add(region(targets, 2, elements), region(addends, 3, elements));
            for (int i = 0; i < elements + 6; i++) {
                float expected = i >= 2 && i < elements + 2 ? 1000 + i + (i + 1) / 4f : 1000 + i;
                assertEquals(expected, targets.getFloat(i * 4), way + ", " + elements + " elements, element " + i);
                assertEquals(i / 4f, addends.getFloat(i * 4), "the addends stay as they were");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FloatSum.Way.class)
    void fewerAddendsThanSumsIsRefused(FloatSum.Way way) {
        assumeTrue(way != FloatSum.Way.VECTOR || VectorSum.unavailable() == null, "before Java 25");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new FloatSum(way).add(filled(4, i -> i), filled(3, i -> i)));
        assertEquals("3 addends for 4 sums", e.getMessage());
    }

    private static ByteBuffer filled(int elements, java.util.function.IntToDoubleFunction value) {
        ByteBuffer b = ByteBuffer.allocateDirect(elements * 4).order(ByteOrder.nativeOrder());
        for (int i = 0; i < elements; i++) {
            b.putFloat(i * 4, (float) value.applyAsDouble(i));
        }
        return b;
    }

    private static ByteBuffer region(ByteBuffer b, int firstElement, int elements) {
        return b.duplicate().position(firstElement * 4).limit((firstElement + elements) * 4).slice()
                .order(ByteOrder.nativeOrder());
    }
}
