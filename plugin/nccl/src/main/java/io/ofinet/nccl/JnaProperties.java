package io.ofinet.nccl;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * JNA's system properties in a JVM the library created, set before JNA's first class initialises so
 * that its start does no work ofinet does not need. Without them JNA, at every start, unpacks its
 * own native library from its jar into {@code ~/.cache/JNA/temp} (deleting the copies earlier JVMs
 * marked), and runs {@code /sbin/ldconfig -p} in a child process to learn the system's library
 * directories, which it searches only when {@code dlopen} cannot find a library by its name:
 * ofinet loads libc from the process and libfabric by its soname, {@code libfabric.so.1}, which
 * {@code dlopen} finds through the loader's own cache or not at all.
 *
 * <ul>
 *   <li>{@code jna.boot.library.path}: the directory of ofinet's jars, where the build unpacked
 *       {@code libjnidispatch.so} from JNA's jar, and {@code jna.nounpack=true}; only when the file
 *       is there.
 *   <li>{@code jna.platform.library.path}: empty, so that JNA runs no {@code ldconfig}.
 * </ul>
 *
 * <p>Nothing is set in a host's JVM, whose JNA (if it has one) is the host's to configure, nor over
 * a property already set ({@code OFINET_JVM_OPTIONS} may set them), nor once JNA has started.
 */
final class JnaProperties {
    static final String BOOT_PATH = "jna.boot.library.path";
    static final String NO_UNPACK = "jna.nounpack";
    static final String PLATFORM_PATH = "jna.platform.library.path";

    private JnaProperties() {
    }

    /** Sets them when ofinet's classes are the class path of a JVM the library created. */
    static void setInCreatedJvm() {
        if (!NcclBridge.inCreatedJvm()) {
            return;
        }
        Path dir = jarDirectory();
        if (dir != null) {
            set(dir);
        }
    }

    /** Sets them for ofinet's jars in dir, unless JNA has started. */
    static void set(Path dir) {
        if (System.getProperty("jna.loaded") != null) {
            return;
        }
        Path dispatch = dir.resolve(System.mapLibraryName("jnidispatch"));
        if (System.getProperty(BOOT_PATH) == null && System.getProperty(NO_UNPACK) == null
                && Files.isRegularFile(dispatch)) {
            System.setProperty(BOOT_PATH, dir.toString());
            System.setProperty(NO_UNPACK, "true");
        }
        if (System.getProperty(PLATFORM_PATH) == null) {
            System.setProperty(PLATFORM_PATH, "");
        }
    }

    /** The directory of the jar this class came from; null when it cannot be told. */
    private static Path jarDirectory() {
        try {
            var source = JnaProperties.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return null;
            }
            return Path.of(source.getLocation().toURI()).getParent();
        } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }
}
