package io.ofinet.it.coll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
