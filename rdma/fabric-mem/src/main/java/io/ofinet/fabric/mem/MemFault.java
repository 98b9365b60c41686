package io.ofinet.fabric.mem;

/**
 * A fault armed on one endpoint for its next operations of one kind ({@link MemFaults.Ops}): how
 * many are left, and the error number they meet. Guarded by the network's monitor, as the endpoint.
 */
final class MemFault {
    private int count;
    private int errno;
    private MemFaults.Ops ops = MemFaults.Ops.ANY;

    void arm(MemFaults.Ops which, int times, int errorNumber) {
        this.ops = which;
        this.count = times;
        this.errno = Math.abs(errorNumber);
    }

    /**
     * Whether the operation about to be posted, of {@code kind} (null: a receive), meets the
     * fault; if so one of its count is used up and {@link #errno()} says which error it meets.
     */
    boolean take(MemOp.Kind kind) {
        if (count == 0 || !ops.covers(kind)) {
            return false;
        }
        count--;
        return true;
    }

    int errno() {
        return errno;
    }

    /** How many operations the fault is still armed for. */
    int left() {
        return count;
    }
}
