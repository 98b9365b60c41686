package io.ofinet.plugin.ofi;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;

/**
 * The direct buffer a communicator posted last, with the address of its first byte: a buffer
 * posted again, as a framework posts the same buffers over and over, costs no call into native
 * code for its address. Held weakly, so that ofinet keeps no buffer alive that the application
 * dropped; made anew only when a communicator posts another buffer.
 */
final class LastBuffer extends WeakReference<ByteBuffer> {
    private final long base;

    LastBuffer(ByteBuffer buffer, long base) {
        super(buffer);
        this.base = base;
    }

    /** Whether it holds {@code buffer}. */
    boolean holds(ByteBuffer buffer) {
        return get() == buffer;
    }

    /** The address of its buffer's first byte. */
    long base() {
        return base;
    }
}
