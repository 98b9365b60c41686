package io.ofinet.tools.coll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * {@code target += in} over float32 in native byte order, one of three ways (512 KiB, JDK 25:
 * {@code bin/ofinet-bench FloatSum}; docs/measurements/2026-11-24-the-reduction-through-the-vector-api.md):
 * <ul>
 * <li><b>vector</b>: the Vector API, straight into the target ({@link VectorSum}; 14–15 µs, as fast
 * as C's 15). Java 25+ started with {@code --add-modules=jdk.incubator.vector} only.
 * <li><b>fused</b>: read both buffers, store each sum in a heap tile of {@value #TILE} floats, then
 * put the tile back with one bulk put (21–22 µs on JDK 25, 100 µs on JDK 17). HotSpot's C2 vectorizes
 * a loop that stores to a {@code float[]}, but not one that stores to a direct buffer while it
 * reads another, since the two may alias.
 * <li><b>tiled</b>: bulk-get both buffers into two tiles, add them there, bulk-put the sums back
 * (32–34 µs on both).
 * </ul>
 * The plain loop over the direct buffers takes 46 µs. One instance per thread.
 */
public final class FloatSum {
    static final int TILE = 1024;
    /** The Java release from which the fused way is faster than the tiled one: the first one measured fast. */
    static final int FUSED_FROM = 25;

    /** How the sum is taken. */
    public enum Way {
        VECTOR, FUSED, TILED;

        @Override
        public String toString() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Way way;
    private final float[] sums = new float[TILE];
    private final float[] addends = new float[TILE];

    /** The way measured fastest of those this JVM has. */
    FloatSum() {
        this(best());
    }

    /**
     * @throws UnsupportedOperationException for the vector way in a JVM without the Vector API,
     *     saying what it needs
     */
    public FloatSum(Way way) {
        if (way == Way.VECTOR && VectorSum.unavailable() != null) {
            throw new UnsupportedOperationException(VectorSum.unavailable());
        }
        this.way = way;
    }

    /** The way {@link #FloatSum()} takes in this JVM. */
    static Way best() {
        if (VectorSum.unavailable() == null) {
            return Way.VECTOR;
        }
        return Runtime.version().feature() >= FUSED_FROM ? Way.FUSED : Way.TILED;
    }

    /** Adds {@code in} to {@code target}, element by element, from both buffers' positions to their limits. */
    public void add(ByteBuffer target, ByteBuffer in) {
        int n = target.remaining() / 4;
        if (in.remaining() / 4 < n) {
            throw new IllegalArgumentException(in.remaining() / 4 + " addends for " + n + " sums");
        }
        switch (way) {
            case VECTOR -> VectorSum.add(target, in);
            case FUSED -> addFused(floats(target), floats(in), n);
            case TILED -> addTiled(floats(target), floats(in), n);
        }
    }

    private static FloatBuffer floats(ByteBuffer b) {
        return b.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer();
    }

    private void addFused(FloatBuffer t, FloatBuffer x, int n) {
        float[] s = sums;
        for (int from = 0; from < n; from += TILE) {
            int len = Math.min(TILE, n - from);
            for (int i = 0; i < len; i++) {
                s[i] = t.get(from + i) + x.get(from + i);
            }
            t.put(from, s, 0, len);
        }
    }

    private void addTiled(FloatBuffer t, FloatBuffer x, int n) {
        float[] s = sums;
        float[] a = addends;
        for (int from = 0; from < n; from += TILE) {
            int len = Math.min(TILE, n - from);
            t.get(from, s, 0, len);
            x.get(from, a, 0, len);
            for (int i = 0; i < len; i++) {
                s[i] += a[i];
            }
            t.put(from, s, 0, len);
        }
    }

    @Override
    public String toString() {
        return way.toString();
    }
}
