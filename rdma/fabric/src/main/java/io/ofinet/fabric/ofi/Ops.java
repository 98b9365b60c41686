package io.ofinet.fabric.ofi;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;

/**
 * Setup-path helpers: reading native memory, calling through libfabric's function-pointer
 * tables, and turning negative returns into {@link FabricException} (the one place error codes
 * are translated; {@code -FI_EAGAIN} is returned, never thrown, by the data-path callers).
 */
final class Ops {
    /** A pointer at address 0: {@code BASE.getLong(address)} reads at {@code address}. */
    static final Pointer BASE = new Pointer(0);

    private Ops() {
    }

    static long getLong(long address) {
        return BASE.getLong(address);
    }

    static int getInt(long address) {
        return BASE.getInt(address);
    }

    static String string(long charPointer) {
        return charPointer == 0 ? "" : new Pointer(charPointer).getString(0);
    }

    /** The function at {@code table + offset}, or an error naming the call. */
    static Function fn(long table, int offset, String call, String provider) throws FabricException {
        long address = table == 0 ? 0 : getLong(table + offset);
        if (address == 0) {
            throw new FabricException(call + " (provider " + provider + ")", FiErrno.FI_ENOSYS,
                    "the provider does not implement it");
        }
        return Function.getFunction(new Pointer(address));
    }

    /** fid->ops->close/bind/control of any fid. */
    static Function fidOp(long fid, int offset, String call, String provider) throws FabricException {
        return fn(getLong(fid + NativeOffsets.FID_OPS), offset, call, provider);
    }

    /** Calls an int-returning function, throwing for a negative result. */
    static int check(String call, String provider, int rc) throws FabricException {
        if (rc < 0) {
            throw error(call, provider, rc);
        }
        return rc;
    }

    static FabricException error(String call, String provider, long rc) {
        int errno = (int) Math.abs(rc);
        return new FabricException(call + " (provider " + provider + ")", errno, OfiLibrary.strerror(errno));
    }

    /**
     * Native scratch memory of {@code size} zeroed bytes, freed when unreachable. A caller that
     * hands its address to native code as a number keeps it reachable until the call has returned
     * ({@link java.lang.ref.Reference#reachabilityFence}): compiled code may let an object go at its
     * last use in Java, and a collection during the call would free the memory under libfabric.
     */
    static Memory scratch(long size) {
        Memory memory = new Memory(size);
        memory.clear();
        return memory;
    }

    static long address(Pointer p) {
        return Pointer.nativeValue(p);
    }

    /** A C string in libc's heap, as libfabric frees with free(). */
    static long strdup(String s) {
        return Pointer.nativeValue(LibC.INSTANCE.strdup(s));
    }

    /** fi_close on a fid. */
    static void close(long fid, String what, String provider) throws FabricException {
        Function close = fidOp(fid, NativeOffsets.FI_OPS_CLOSE, "fi_close(" + what + ")", provider);
        check("fi_close(" + what + ")", provider, close.invokeInt(new Object[] {fid}));
        NativeUsage.closed();
    }

    /** fi_enable: fid->ops->control(fid, FI_ENABLE, NULL). */
    static void enable(long fid, String call, String provider) throws FabricException {
        Function control = fidOp(fid, NativeOffsets.FI_OPS_CONTROL, call, provider);
        check(call, provider, control.invokeInt(new Object[] {fid, NativeOffsets.FI_ENABLE, 0L}));
    }

    /** fi_*_bind: fid->ops->bind(fid, bfid, flags). */
    static void bind(long fid, long bfid, long flags, String call, String provider) throws FabricException {
        Function bind = fidOp(fid, NativeOffsets.FI_OPS_BIND, call, provider);
        check(call, provider, bind.invokeInt(new Object[] {fid, bfid, flags}));
    }
}
