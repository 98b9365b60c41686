package io.ofinet.fabric.ofi;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Calls a C function through a pointer with JNA, without allocating: the Java 17 data path.
 *
 * <p>{@link Function#invokeLong(Object[])} boxes every argument, copies the argument array and
 * converts each element before it reaches JNA's native dispatcher. Below it is JNA's own entry
 * {@code Native.invokeLong(Function, long fp, int callFlags, Object[] args)}, which reads each
 * argument in place. This class calls that entry directly with a per-thread argument array:
 * zero passes as null, small values as the JDK's cached {@code Long}s, anything else in a
 * per-thread {@link Slot}, a pointer whose address is set before the call; nothing is boxed or
 * copied.
 * Every argument of a libfabric data-path call is 64 bits wide (a pointer, {@code size_t},
 * {@code fi_addr_t} or {@code uint64_t}), so every argument passes as a pointer or a
 * {@code long}, which the x86-64 and AArch64 calling conventions pass alike.
 *
 * <p>The entry is package-private in JNA and reached by a private lookup, which works wherever
 * JNA's package is open to this code (the class path, or JNA as an automatic module). Where it
 * is not, {@link #direct()} is false and calls go through {@link Function#invokeLong}, which
 * allocates.
 */
final class JnaInvoker {
    /** The most arguments a data-path call takes ({@code fi_writedata} with its endpoint). */
    static final int MAX_ARGS = 9;

    private static final System.Logger LOG = System.getLogger(JnaInvoker.class.getName());
    private static final MethodHandle INVOKE_LONG = findInvokeLong();
    private static final MethodHandle BUFFER_ADDRESS = findBufferAddress();
    private static final ThreadLocal<Frame> FRAME = ThreadLocal.withInitial(Frame::new);

    private final Function function;
    private final long address;

    /** A caller of the function at {@code address}. */
    JnaInvoker(long address) {
        this.address = address;
        this.function = Function.getFunction(new Pointer(address));
    }

    /** Whether calls and buffer addresses go to JNA's native code directly, allocating nothing. */
    static boolean direct() {
        return INVOKE_LONG != null && BUFFER_ADDRESS != null;
    }

    long call(long a0, long a1) {
        return invoke(FRAME.get().fill(2, a0, a1, 0, 0, 0, 0, 0, 0, 0));
    }

    long call(long a0, long a1, long a2) {
        return invoke(FRAME.get().fill(3, a0, a1, a2, 0, 0, 0, 0, 0, 0));
    }

    long call(long a0, long a1, long a2, long a3) {
        return invoke(FRAME.get().fill(4, a0, a1, a2, a3, 0, 0, 0, 0, 0));
    }

    long call(long a0, long a1, long a2, long a3, long a4, long a5) {
        return invoke(FRAME.get().fill(6, a0, a1, a2, a3, a4, a5, 0, 0, 0));
    }

    long call(long a0, long a1, long a2, long a3, long a4, long a5, long a6) {
        return invoke(FRAME.get().fill(7, a0, a1, a2, a3, a4, a5, a6, 0, 0));
    }

    long call(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7) {
        return invoke(FRAME.get().fill(8, a0, a1, a2, a3, a4, a5, a6, a7, 0));
    }

    long call(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8) {
        return invoke(FRAME.get().fill(9, a0, a1, a2, a3, a4, a5, a6, a7, a8));
    }

    private long invoke(Object[] args) {
        if (INVOKE_LONG == null) {
            return function.invokeLong(args);
        }
        try {
            return (long) INVOKE_LONG.invokeExact(function, address, Function.C_CONVENTION, args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("JNA dispatch failed", e);
        }
    }

    /**
     * The address of a direct buffer's first byte (not its position's): JNA's JNI call {@code
     * Native._getDirectBufferPointer}, reached like its dispatcher, which returns the address as a
     * {@code long} where the public {@code Native.getDirectBufferPointer} wraps it in a new
     * {@link Pointer}. Falls back to the public method, which allocates, where the lookup failed.
     */
    static long directBufferAddress(java.nio.Buffer direct) {
        if (BUFFER_ADDRESS == null) {
            return Pointer.nativeValue(Native.getDirectBufferPointer(direct));
        }
        try {
            return (long) BUFFER_ADDRESS.invokeExact(direct);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("JNA's buffer address call failed", e);
        }
    }

    private static MethodHandle findBufferAddress() {
        try {
            return MethodHandles.privateLookupIn(Native.class, MethodHandles.lookup()).findStatic(Native.class,
                    "_getDirectBufferPointer", MethodType.methodType(long.class, java.nio.Buffer.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.INFO, "JNA''s buffer address call is not reachable ({0}); finding a direct buffer''s"
                    + " address may allocate", e.toString());
            return null;
        }
    }

    private static MethodHandle findInvokeLong() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(Native.class, MethodHandles.lookup());
            return lookup.findStatic(Native.class, "invokeLong",
                    MethodType.methodType(long.class, Function.class, long.class, int.class, Object[].class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.INFO, "JNA''s dispatcher is not reachable ({0}); Java 17 data-path calls box"
                    + " their arguments", e.toString());
            return null;
        }
    }

    /** A pointer argument whose address is set before each call. */
    private static final class Slot extends Pointer {
        Slot() {
            super(0);
        }

        void set(long value) {
            peer = value;
        }
    }

    /** One thread's argument arrays, one per arity, and the slots they share. */
    private static final class Frame {
        private final Slot[] slots = new Slot[MAX_ARGS];
        private final Object[][] byArity = new Object[MAX_ARGS + 1][];

        Frame() {
            for (int i = 0; i < MAX_ARGS; i++) {
                slots[i] = new Slot();
            }
            for (int n = 0; n <= MAX_ARGS; n++) {
                byArity[n] = new Object[n];
            }
        }

        /** The array of {@code count} arguments, set to the first {@code count} values. */
        @SuppressWarnings("fallthrough")
        Object[] fill(int count, long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7,
                long a8) {
            Object[] args = byArity[count];
            switch (count) { // each case falls through to the arguments before it
                case 9:
                    set(args, 8, a8);
                case 8:
                    set(args, 7, a7);
                case 7:
                    set(args, 6, a6);
                case 6:
                    set(args, 5, a5);
                case 5:
                    set(args, 4, a4);
                case 4:
                    set(args, 3, a3);
                case 3:
                    set(args, 2, a2);
                case 2:
                    set(args, 1, a1);
                case 1:
                    set(args, 0, a0);
                default:
                    return args;
            }
        }

        /**
         * Sets one argument. JNA's dispatcher tests each argument's class in turn, null first
         * and {@code Long} some tests before {@code Pointer}: zero passes as null and small
         * values as the JDK's cached {@code Long}s, neither of which allocates.
         */
        void set(Object[] args, int index, long value) {
            if (value == 0) {
                args[index] = null;
            } else if (value >= -128 && value <= 127) {
                args[index] = Long.valueOf(value);
            } else {
                Slot slot = slots[index];
                slot.set(value);
                args[index] = slot;
            }
        }
    }
}
