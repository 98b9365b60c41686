package io.ofinet.tools.coll;

import java.nio.ByteBuffer;

/**
 * {@code target += in} through the Vector API. This base version, for releases before Java 25,
 * has no Vector API way; the one in {@code META-INF/versions/25} of the multi-release jar has, when
 * the JVM was started with {@code --add-modules=jdk.incubator.vector}.
 */
final class VectorSum {
    private VectorSum() {
    }

    /** Why this JVM has no Vector API way, or null if it has one. */
    static String unavailable() {
        return "the Vector API way is in the classes for Java 25+ of the multi-release jar, not loaded here (Java "
                + Runtime.version().feature() + ")";
    }

    /** Adds {@code in} to {@code target} from both buffers' positions to {@code target}'s limit. */
    static void add(ByteBuffer target, ByteBuffer in) {
        throw new UnsupportedOperationException(unavailable());
    }
}
