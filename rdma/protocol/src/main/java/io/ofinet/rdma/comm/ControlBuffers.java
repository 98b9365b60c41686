package io.ofinet.rdma.comm;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.op.RmaOp;

/**
 * The endpoint's registered buffers on the control rails, as a receive communicator uses them: it
 * encodes an announcement straight into one and writes or sends it from there; the operation that
 * does gives it back when it ends, also when the receive was abandoned meanwhile.
 */
public interface ControlBuffers {
    /** A registered buffer on the control rails; {@link RmaOp.Held#released} returns it. */
    interface Buffer extends RmaOp.Held {
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
