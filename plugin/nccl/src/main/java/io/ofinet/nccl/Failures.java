package io.ofinet.nccl;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.ofi.NcclResults;

/** How the door turns what went wrong into a logged line and an {@code ncclResult_t}. */
final class Failures {
    private Failures() {
    }

    /** The code for {@code t}, logged as a warning naming the operation. */
    static int code(String operation, Throwable t, NcclDoor.Log log) {
        int code = t instanceof DoorException d ? d.code() : t instanceof NetException e ? NcclResults.code(e.result())
                // A bug of ofinet's, or the JVM out of memory: never thrown into C.
                : t instanceof OutOfMemoryError ? NcclResults.SYSTEM_ERROR : NcclResults.INTERNAL_ERROR;
        try {
            String message = t instanceof DoorException ? t.getMessage()
                    : t instanceof NetException ? (t.getMessage().startsWith(operation + ":") ? t.getMessage()
                            : operation + ": " + t.getMessage())
                    : operation + ": unexpected " + t;
            log.warn(message);
        } catch (Throwable ignored) {
            // Describing and logging must not turn a result code into a crash (a second OutOfMemoryError).
        }
        return code;
    }

    /** A NULL where NCCL must pass a pointer to write to. */
    static void out(long address, String operation, String what) throws DoorException {
        if (address == 0) {
            throw new DoorException(NcclResults.INTERNAL_ERROR, operation + ": " + what + " is NULL");
        }
    }

    /** Why a handle found nothing: NULL, or not a live one of ofinet's. */
    static String describe(long handle, String what) {
        return handle == 0 ? "the " + what + " is NULL"
                : "0x" + Long.toHexString(handle) + " is no live " + what + " of ofinet (closed, finished, or not one"
                        + " ofinet made)";
    }
}
