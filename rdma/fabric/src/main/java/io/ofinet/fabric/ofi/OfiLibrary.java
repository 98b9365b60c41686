package io.ofinet.fabric.ofi;

import com.sun.jna.Library;
import io.ofinet.fabric.RxmEagerLimit;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Optional;

/**
 * Loads libfabric once and remembers why it could not be loaded.
 *
 * <p>Debian's {@code libfabric.so.1} pulls in the psm provider's {@code libinfinipath}, whose
 * load-time constructor installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGINT and
 * SIGTERM unless {@code IPATH_NO_BACKTRACE} is set: the JVM, which uses SIGSEGV for implicit
 * null checks, then dies at its first NullPointerException. Loading therefore sets {@code
 * IPATH_NO_BACKTRACE=1} and {@code HFI_NO_BACKTRACE=1} in the process environment (libc {@code
 * setenv}, which is what the library's constructor reads) before {@code dlopen}. It sets {@code
 * ofi_rxm}'s eager limit there too, unless the environment has it ({@link RxmEagerLimit}), and on a
 * machine with no RDMA device the settings ofinet chooses for rxm over tcp ({@link RxmTcpDefaults}).
 */
public final class OfiLibrary {
    /** The API version ofinet requests, and the one whose struct layouts it pins: 1.17. */
    public static final int API_VERSION = (1 << 16) | 17;

    /** The library's file name. */
    public static final String LIBRARY = "libfabric.so.1";

    /** What rxm reads from the environment at its first initialisation, set at load unless it is there. */
    static final Map<String, String> RXM_DEFAULTS = Map.of(
            RxmEagerLimit.VARIABLE, Long.toString(RxmEagerLimit.DEFAULT));

    private static final System.Logger LOG = System.getLogger(OfiLibrary.class.getName());
    private static final Loaded LOADED = load();

    private OfiLibrary() {
    }

    private record Loaded(LibFabric lib, int version, Throwable cause) {
    }

    private static Loaded load() {
        try {
            for (String variable : new String[] {"IPATH_NO_BACKTRACE", "HFI_NO_BACKTRACE"}) {
                if (LibC.INSTANCE.setenv(variable, "1", 1) != 0) {
                    throw new IllegalStateException("setenv " + variable + " failed");
                }
            }
            Map<String, String> rxmValues = new java.util.LinkedHashMap<>(RXM_DEFAULTS);
            rxmValues.putAll(RxmTcpDefaults.values(System.getenv(), RxmTcpDefaults.RDMA_DEVICES));
            for (Map.Entry<String, String> rxm : rxmValues.entrySet()) {
                if (LibC.INSTANCE.setenv(rxm.getKey(), rxm.getValue(), 0) != 0) {
                    throw new IllegalStateException("setenv " + rxm.getKey() + " failed");
                }
            }
            LibFabric lib = com.sun.jna.Native.load(LIBRARY, LibFabric.class,
                    Map.of(Library.OPTION_OPEN_FLAGS, 0x102 /* RTLD_NOW | RTLD_GLOBAL */));
            int version = lib.fi_version();
            if (version < API_VERSION) {
                return new Loaded(null, version, new UnsatisfiedLinkError("libfabric "
                        + versionString(version) + " is too old: ofinet needs 1.17 or newer"
                        + " (Debian/Ubuntu: apt-get install libfabric1)"));
            }
            LOG.log(Level.DEBUG, "loaded libfabric {0}", versionString(version));
            return new Loaded(lib, version, null);
        } catch (UnsatisfiedLinkError | NoClassDefFoundError | IllegalStateException e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError("libfabric is not available: cannot"
                    + " load " + LIBRARY + " (" + e.getMessage() + "); install it with"
                    + " apt-get install libfabric1 (Debian/Ubuntu)");
            error.initCause(e);
            return new Loaded(null, 0, error);
        }
    }

    /** Whether libfabric loaded and is recent enough. */
    public static boolean isAvailable() {
        return LOADED.lib != null;
    }

    /** Why libfabric is not available, when it is not. */
    public static Optional<Throwable> unavailabilityCause() {
        return Optional.ofNullable(LOADED.cause);
    }

    /** The loaded library's version, {@code major << 16 | minor}; 0 when not loaded. */
    public static int version() {
        return LOADED.version;
    }

    /** A version as {@link #version()} gives it, as "major.minor". */
    public static String versionString(int version) {
        return (version >>> 16) + "." + (version & 0xffff);
    }

    /** The library, or an error saying why it is missing and how to install it. */
    static LibFabric lib() {
        if (LOADED.lib == null) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(LOADED.cause.getMessage());
            error.initCause(LOADED.cause);
            throw error;
        }
        return LOADED.lib;
    }

    /** libfabric's description of an error number. */
    static String strerror(int errno) {
        return lib().fi_strerror(Math.abs(errno));
    }
}
