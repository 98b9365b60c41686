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
        requireEntries("irecv", count, "addresses", addresses == null ? -1 : addresses.length);
        requireEntries("irecv", count, "sizes", sizes == null ? -1 : sizes.length);
        requireEntries("irecv", count, "tags", tags == null ? -1 : tags.length);
        requireEntries("irecv", count, "memory handles", mrs == null ? -1 : mrs.length);
        requireInside("irecv", count, addresses, sizes, mrs, true);
    }

    /**
     * A flush of {@code count} received buffers: the arrays hold that many, and each buffer with a
     * size and a memory handle lies inside its registration (the flush reads from it).
     */
    public static void checkFlush(int count, long[] addresses, long[] sizes, MrHandle[] mrs) throws RdmaException {
        requireEntries("iflush", count, "addresses", addresses == null ? -1 : addresses.length);
        requireEntries("iflush", count, "sizes", sizes == null ? -1 : sizes.length);
        requireEntries("iflush", count, "memory handles", mrs == null ? -1 : mrs.length);
        requireInside("iflush", count, addresses, sizes, mrs, false);
    }

    /**
     * Refuses a negative size, and a buffer with a size outside its registration; one without a
     * memory handle is refused when {@code handleRequired} (a receive writes it), else left alone (a
     * flush skips it).
     */
    private static void requireInside(String operation, int count, long[] addresses, long[] sizes, MrHandle[] mrs,
            boolean handleRequired) throws RdmaException {
        for (int i = 0; i < count; i++) {
            MrHandle mr = mrs[i];
            if (sizes[i] < 0 || (mr == null ? handleRequired && sizes[i] > 0 : !mr.covers(addresses[i], sizes[i]))) {
                throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, operation + ": buffer " + i + " [0x"
                        + Long.toHexString(addresses[i]) + ", +" + sizes[i] + ") is not inside its registration");
            }
        }
    }

    /** Refuses arrays shorter than the buffer count, and missing ones ({@code length} -1). */
    private static void requireEntries(String operation, int count, String what, int length) throws RdmaException {
        if (length < 0) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, operation + ": no array of " + what);
        }
        if (length < count) {
            throw new RdmaException(ErrorCategory.INVALID_ARGUMENT, operation + ": " + count + " buffers, but " + length
                    + " " + what);
        }
    }
}
