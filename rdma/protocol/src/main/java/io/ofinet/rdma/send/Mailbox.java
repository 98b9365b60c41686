package io.ofinet.rdma.send;

import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.wire.Limits;

/**
 * Where a send communicator's receiver writes its announcements: {@link Limits#WINDOW} slots of
 * {@code slotBytes} in native memory at {@code address}, registered for the control rails in
 * {@code mr}. Made by the handshake; released by the endpoint once the receiver writes no more.
 */
public record Mailbox(long address, MrHandle mr, int slotBytes) {
    /** Where the announcement of message {@code seq} is written. */
    long slot(int seq) {
        return address + (long) (seq % Limits.WINDOW) * slotBytes;
    }

    /** Checks that an announcement of {@code bytes} sent rather than written would fit its slot. */
    void checkFits(int seq, int bytes) throws RdmaException {
        if (bytes > slotBytes) {
            throw new RdmaException(ErrorCategory.REMOTE, "announcement " + seq + " of " + bytes
                    + " bytes is larger than a mailbox slot (" + slotBytes + " bytes)");
        }
    }
}
