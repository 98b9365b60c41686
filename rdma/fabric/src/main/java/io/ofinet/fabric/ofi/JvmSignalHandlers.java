package io.ofinet.fabric.ofi;

import com.sun.jna.Memory;
import io.ofinet.fabric.FabricException;
import java.lang.System.Logger.Level;

/**
 * Keeps the JVM's handlers of SIGSEGV and SIGBUS in place across a native call that may replace
 * them.
 *
 * <p>The JVM takes SIGSEGV as part of normal execution: JIT-compiled code leaves null checks to the
 * hardware, and the JVM's handler turns the fault into a NullPointerException. libfabric 1.17's
 * {@code shm} provider installs, at its first {@code fi_endpoint}, handlers for SIGSEGV, SIGBUS,
 * SIGTERM and SIGINT that {@code shm_unlink} every region name of the process before they chain to
 * the previous handler. In a JVM the first implicit null check therefore removes the names of all
 * shm endpoints of the process: established peers keep their mappings and go on, but no endpoint
 * opened later — here or in another process — can ever reach them (its {@code shm_open} fails, and
 * every post to them is refused with -FI_EAGAIN). ofinet puts the JVM's SIGSEGV and SIGBUS
 * handlers back after each endpoint is opened; shm keeps its SIGTERM and SIGINT handlers, which
 * clean up and then chain to the JVM's shutdown.
 */
final class JvmSignalHandlers {
    private static final System.Logger LOG = System.getLogger(JvmSignalHandlers.class.getName());
    /** Linux signal numbers (x86_64 and aarch64 alike). */
    static final int SIGBUS = 7;
    static final int SIGSEGV = 11;
    /** Room for a {@code struct sigaction} (152 bytes with glibc on x86_64 and aarch64). */
    private static final int SIGACTION_BYTES = 256;

    /** A native call that may install signal handlers. */
    @FunctionalInterface
    interface NativeCall<T> {
        T run() throws FabricException;
    }

    private JvmSignalHandlers() {
    }

    /** The address of the handler installed for {@code signal} now. */
    static long handler(int signal) {
        Memory current = new Memory(SIGACTION_BYTES);
        current.clear();
        LibC.INSTANCE.sigaction(signal, null, current);
        return current.getLong(0);
    }

    /**
     * Runs {@code call}, then restores the SIGSEGV and SIGBUS handlers that were installed before
     * it, if it replaced them. One call at a time, so that two threads opening endpoints cannot
     * save each other's providers' handlers.
     */
    static synchronized <T> T preserved(String provider, NativeCall<T> call) throws FabricException {
        Memory segv = save(SIGSEGV);
        Memory bus = save(SIGBUS);
        try {
            return call.run();
        } finally {
            restore(SIGSEGV, "SIGSEGV", segv, provider);
            restore(SIGBUS, "SIGBUS", bus, provider);
        }
    }

    private static Memory save(int signal) {
        Memory saved = new Memory(SIGACTION_BYTES);
        saved.clear();
        LibC.INSTANCE.sigaction(signal, null, saved);
        return saved;
    }

    private static void restore(int signal, String name, Memory saved, String provider) {
        if (handler(signal) != saved.getLong(0)) {
            LibC.INSTANCE.sigaction(signal, saved, null);
            LOG.log(Level.DEBUG, "{0} replaced the {1} handler; the JVM''s is restored", provider, name);
        }
    }
}
