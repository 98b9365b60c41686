package io.ofinet.plugin.ofi;

import java.nio.ByteBuffer;

/**
 * The messages of the test peers' streams ({@link ThreadsPeer}, {@link MessageStream}), reproducible
 * from a seed on both sides: the sender fills message k of a stream, the receiver knows its size and
 * checks every byte.
 */
final class Payloads {
    /** The largest message: 1 MiB. */
    static final int MAX_BYTES = 1 << 20;

    private Payloads() {
    }

    /** The size of message k of a stream: mostly small, some up to 256 KiB, one in a hundred 1 MiB, some empty. */
    static int size(long seed, long k) {
        long h = mix(seed * 0x9E3779B97F4A7C15L + k);
        int bucket = (int) Long.remainderUnsigned(h, 100);
        long r = h >>> 20;
        if (bucket < 40) {
            return 8 + (int) (r % 57);
        } else if (bucket < 70) {
            return (int) (r % 4097);
        } else if (bucket < 95) {
            return (int) (r % 65537);
        } else if (bucket < 99) {
            return (int) (r % 262145);
        }
        return MAX_BYTES;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long word(long seed, long k, int j) {
        return mix(seed + k * 0x632BE59BD9B4E019L) + j;
    }

    /** Writes message {@code k} of the stream {@code seed}, {@code size} bytes, at {@code offset} of {@code b}. */
    static void fill(ByteBuffer b, int offset, long seed, long k, int size) {
        int words = size / 8;
        for (int j = 0; j < words; j++) {
            b.putLong(offset + 8 * j, word(seed, k, j));
        }
        for (int j = words * 8; j < size; j++) {
            b.put(offset + j, (byte) (k + j));
        }
    }

    /**
     * Checks message {@code k} of the stream {@code seed}, {@code size} bytes at {@code offset} of {@code b}:
     * the index of its first wrong byte, or -1.
     */
    static int verify(ByteBuffer b, int offset, long seed, long k, int size) {
        int words = size / 8;
        for (int j = 0; j < words; j++) {
            if (b.getLong(offset + 8 * j) != word(seed, k, j)) {
                return 8 * j;
            }
        }
        for (int j = words * 8; j < size; j++) {
            if (b.get(offset + j) != (byte) (k + j)) {
                return j;
            }
        }
        return -1;
    }

    /** The seed of the stream {@code sender} sends in {@code round} on its {@code index}th pair. */
    static long seed(String sender, int round, int index) {
        return mix(sender.hashCode() * 1_000_003L + round * 1009L + index);
    }
}
