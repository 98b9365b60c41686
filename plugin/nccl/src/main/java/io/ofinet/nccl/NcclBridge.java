package io.ofinet.nccl;

import io.ofinet.fabric.ofi.OfiLibrary;
import io.ofinet.fabric.ofi.OfiProvider;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * Where {@code libnccl-net-ofinet.so} enters Java, once per process, through JNI: {@link #bootstrap}
 * makes an FFM upcall stub for each entry the library names and writes its address into the
 * library's table. From then on every NCCL call crosses through its stub, which attaches a foreign
 * thread to the JVM on its first call. The stubs live as long as the process (the global arena).
 * Linking upcalls and downcalls by address is restricted: deliberate, as the addresses are the library's.
 */
@SuppressWarnings("restricted")
public final class NcclBridge {
    private static final int LOG_WARN = 2;
    private static final int LOG_INFO = 3;
    private static final int LOG_TRACE = 5;
    private static volatile MethodHandle logFunction;

    private NcclBridge() {
    }

    /** Whether the library has entered this JVM ({@link #bootstrap}): NCCL's process, not a test's. */
    private static volatile boolean bootstrapped;

    /**
     * Whether this JVM is one the library created and entered, ofinet's own: the library has entered
     * it and ofinet's classes are its class path. In a host's JVM they come from a loader of their
     * own; a test's JVM the library never entered.
     */
    static boolean inCreatedJvm() {
        return bootstrapped && NcclBridge.class.getClassLoader() == ClassLoader.getSystemClassLoader();
    }

    /**
     * Fills the library's entries. Called by the library with the address of its entry table, of
     * its array of {@code count} entry names (C strings), of its log function {@code void (int
     * level, const char* message)}, and of the function a shutdown hook calls: once the JVM shuts
     * down (a host JVM ending), the library's exit-time cleanup must not enter it.
     *
     * @return null when every entry was filled, else why not (the library's init fails with it)
     */
    public static String bootstrap(long entries, long names, int count, long log, long jvmEnding) {
        try {
            bootstrapped = true;
            JnaProperties.setInCreatedJvm();
            MethodHandles.lookup().ensureInitialized(NcclTable.class);
            Linker linker = Linker.nativeLinker();
            boolean loading = NativesAhead.resolve();
            if (loading) {
                loadLibfabricMeanwhile();
            }
            logFunction = linker.downcallHandle(MemorySegment.ofAddress(log),
                    FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            MethodHandle ending = linker.downcallHandle(MemorySegment.ofAddress(jvmEnding), FunctionDescriptor.ofVoid());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    NcclTable.DOOR.endWarmUp();
                } catch (Throwable t) {
                    System.err.println("ofinet: " + t);
                }
                try {
                    ending.invokeExact();
                } catch (Throwable t) {
                    System.err.println("ofinet: " + t);
                }
            }, "ofinet-jvm-ending"));
            for (int i = 0; i < count; i++) {
                String name = CMemory.getString(CMemory.getLong(names + 8L * i));
                Method method = entry(NcclTable.class, name);
                if (method == null) {
                    return "the library asks for the entry " + name + ", which ofinet's Java side does not have:"
                            + " libnccl-net-ofinet.so and the jars beside it come from different builds";
                }
                MethodHandle target = MethodHandles.lookup().unreflect(method);
                MemorySegment stub = linker.upcallStub(target, descriptor(method), Arena.global());
                CMemory.putLong(entries + 8L * i, stub.address());
                if (!loading) {
                    loadLibfabricMeanwhile();
                    loading = true;
                }
            }
            try {
                // The data path's downcalls, linked now, while libfabric loads, rather than by the
                // plugin's init after the load.
                OfiProvider.dataPathName();
            } catch (Throwable t) {
                // The plugin's init meets it again and reports it.
            }
            return null;
        } catch (Throwable t) {
            Throwable cause = t instanceof ExceptionInInitializerError && t.getCause() != null ? t.getCause() : t;
            return "ofinet's Java side could not start: " + cause;
        }
    }

    /**
     * Starts loading libfabric on a thread of its own, as NCCL's init needs it next. Debian's
     * libfabric.so.1 pulls in psm's libinfinipath and psm2, whose load-time constructors measure the
     * CPU's cycle counter against the clock for about 100 ms each, sleeping, under the dynamic
     * loader's lock. Every {@code dlsym} of the process waits for that lock, and so does the JVM's
     * first call of a native method it has not resolved yet: the bridge starts the load once
     * {@link NativesAhead} has resolved those its FFM work calls, before that work (else once its
     * first upcall stub is made), and the downcalls, the stubs and the data path's link run while the
     * load sleeps (docs/NCCL.md). The plugin's init, which loads libfabric too, waits for this load
     * through the class's initialisation, and meets its failure, if it failed, as it would have met
     * its own (OfiLibrary keeps why).
     */
    private static void loadLibfabricMeanwhile() {
        Thread.ofPlatform().daemon().name("ofinet-libfabric-load").start(() -> {
            try {
                OfiLibrary.isAvailable();
            } catch (Throwable t) {
                // The plugin's init loads it again and reports what went wrong.
            }
        });
    }

    /** The static method {@code name} of {@code table} that returns an int (an ncclResult_t), or null. */
    static Method entry(Class<?> table, String name) {
        for (Method m : table.getDeclaredMethods()) {
            if (m.getName().equals(name) && Modifier.isStatic(m.getModifiers()) && m.getReturnType() == int.class) {
                return m;
            }
        }
        return null;
    }

    /** C's {@code OFINET_ENTRY_ARGS}. */
    static final int ENTRY_ARGS = 7;

    /**
     * The one type of every entry, C's {@code ofinet_entry}: seven int64_t, an int result. FFM
     * generates an upcall's classes once per type (several milliseconds each at init, more on busy
     * cores): entries of one type share them.
     */
    static final FunctionDescriptor ENTRY = entryType();

    private static FunctionDescriptor entryType() {
        MemoryLayout[] layouts = new MemoryLayout[ENTRY_ARGS];
        Arrays.fill(layouts, ValueLayout.JAVA_LONG);
        return FunctionDescriptor.of(ValueLayout.JAVA_INT, layouts);
    }

    /** {@link #ENTRY}, once {@code method} is checked to have its type. */
    static FunctionDescriptor descriptor(Method method) {
        Class<?>[] types = method.getParameterTypes();
        boolean longs = types.length == ENTRY_ARGS;
        for (int i = 0; longs && i < types.length; i++) {
            longs = types[i] == long.class;
        }
        if (!longs) {
            throw new IllegalArgumentException(method + " does not take the entries' " + ENTRY_ARGS + " longs");
        }
        return ENTRY;
    }

    /** The door's log: through the library to NCCL's logger (or stderr without one). */
    static NcclDoor.Log log() {
        return new NcclDoor.Log() {
            @Override
            public void warn(String message) {
                write(LOG_WARN, message);
            }

            @Override
            public void info(String message) {
                write(LOG_INFO, message);
            }

            @Override
            public void trace(String message) {
                write(LOG_TRACE, message);
            }
        };
    }

    private static void write(int level, String message) {
        MethodHandle f = logFunction;
        if (f == null) {
            System.err.println("ofinet: " + message);
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            f.invokeExact(level, arena.allocateFrom(message));
        } catch (Throwable t) {
            System.err.println("ofinet: " + message + " (NCCL's logger failed: " + t + ")");
        }
    }
}
