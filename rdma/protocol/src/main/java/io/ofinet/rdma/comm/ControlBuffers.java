package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;

/**
 * The endpoint's registered buffers on the control rails, as a receive communicator uses them: it
 * encodes an announcement straight into one and writes or sends it from there, and gives it back
 * once that has completed.
 */
public interface ControlBuffers {
    /** A registered buffer on the control rails. */
    interface Buffer {
        /** Where it starts. */
        long address();

        /** Its local descriptor on control rail {@code rail}. */
        long descriptor(int rail);
    }

    /** A free buffer, or null when none is. */
    Buffer acquire() throws RdmaException;

    /** Gives back a buffer taken by {@link #acquire}. */
    void release(Buffer buffer);
}
