package io.ofinet.rdma.recv;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Limits;

/** The checks of {@code irecv} and {@code iflush} arguments, made before any resource is taken. */
public final class ReceiveArguments {
    private ReceiveArguments() {
    }

    /** A grouped receive of 1..8 buffers, each inside its registration (an empty one needs none). */
    public static void check(int count, long[] addresses, long[] sizes, int[] tags, MrHandle[] mrs) throws RdmaException {
        if (count < 1 || count > Limits.MAX_RECVS) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "irecv: " + count + " buffers, not 1.."
                    + Limits.MAX_RECVS);
        }
        requireEntries("irecv", count, "addresses", addresses.length);
        requireEntries("irecv", count, "sizes", sizes.length);
        requireEntries("irecv", count, "tags", tags.length);
        requireEntries("irecv", count, "memory handles", mrs.length);
        for (int i = 0; i < count; i++) {
            MrHandle mr = mrs[i];
            if (sizes[i] < 0 || (sizes[i] > 0 && (mr == null || addresses[i] < mr.address()
                    || addresses[i] + sizes[i] > mr.address() + mr.length()))) {
                throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, "irecv: buffer " + i + " [0x"
                        + Long.toHexString(addresses[i]) + ", +" + sizes[i] + ") is not inside its registration");
            }
        }
    }

    /** A flush of {@code count} received buffers: the arrays hold that many. */
    public static void checkFlush(int count, long[] addresses, long[] sizes, MrHandle[] mrs) throws RdmaException {
        requireEntries("iflush", count, "addresses", addresses.length);
        requireEntries("iflush", count, "sizes", sizes.length);
        requireEntries("iflush", count, "memory handles", mrs.length);
    }

    /** Refuses arrays shorter than the buffer count. */
    private static void requireEntries(String operation, int count, String what, int length) throws RdmaException {
        if (length < count) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, operation + ": " + count + " buffers, but " + length
                    + " " + what);
        }
    }
}
