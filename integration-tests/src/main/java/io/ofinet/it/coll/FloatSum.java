package io.ofinet.it.coll;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * {@code target += in} over float32 in native byte order, through a small heap tile. HotSpot's C2
 * vectorizes a loop that stores to a {@code float[]}, but not one that stores to a direct buffer
 * while it reads another, since the two may alias. Two ways use that:
 * <ul>
 * <li><b>fused</b>: read both buffers, store each sum in the tile, then put the tile back with one
 * bulk put (512 KiB: 21 µs on JDK 25, but 100 µs on JDK 17, which does not vectorize it);
 * <li><b>tiled</b>: bulk-get both buffers into two tiles, add them there, bulk-put the sums back
 * (32–34 µs on both).
 * </ul>
 * The plain loop over the direct buffers takes 46 µs, C 15 ({@code bin/ofinet-bench FloatSum};
 * docs/PERFORMANCE.md, "The reduction, summed as it is read"). One instance per thread.
 */
final class FloatSum {
    static final int TILE = 1024;
    /** The Java release from which the fused way is the default: the first one measured fast. */
    static final int FUSED_FROM = 25;

    private final boolean fused;
    private final float[] sums = new float[TILE];
    private final float[] addends = new float[TILE];

    /** The way measured faster on the running Java release. */
    FloatSum() {
        this(Runtime.version().feature() >= FUSED_FROM);
    }

    /** @param fused the fused way if true, else the tiled one */
    FloatSum(boolean fused) {
        this.fused = fused;
    }

    /** Adds {@code in} to {@code target}, element by element, from both buffers' positions to their limits. */
    void add(ByteBuffer target, ByteBuffer in) {
        FloatBuffer t = target.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer();
        FloatBuffer x = in.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer();
        if (x.remaining() < t.remaining()) {
            throw new IllegalArgumentException(x.remaining() + " addends for " + t.remaining() + " sums");
        }
        if (fused) {
            addFused(t, x, t.remaining());
        } else {
            addTiled(t, x, t.remaining());
        }
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
        return fused ? "fused" : "tiled";
    }
}
