package io.ofinet.nccl;

import java.util.List;

/**
 * Resolves ahead of libfabric's load the JVM's native methods that the bridge's FFM work calls
 * first, so that the load can start before that work instead of after its first upcall stub.
 *
 * <p>The JVM looks a native method's symbol up ({@code dlsym}) at its first call, and {@code dlsym}
 * waits for the dynamic loader's lock, which libfabric's load holds while psm's and psm2's
 * constructors sleep (about 200 ms with Debian's libfabric: docs/NCCL.md). The bridge's first
 * downcall and first upcall stub call natives of four JDK classes, which their static initialisers
 * register or call, and making the stubs calls reflection's {@code Array.getLength} (found with
 * {@code -Xlog:jni+resolve=debug}). Those classes are initialised here by name: they are JDK
 * internals, so a JDK without one of them makes {@link #resolve} return false, and the bridge then
 * starts the load after its first stub, as it would without this class. A native this class does
 * not resolve waits for the load: slower, never wrong. BridgeLoadIT fails when the bridge looks a
 * native up after starting the load, on the build's JDK (checked on Temurin 25).
 */
final class NativesAhead {
    /**
     * The JDK classes whose static initialisers register the natives of FFM's downcalls and upcalls,
     * or call the one native of the preview-features check FFM's linking makes.
     */
    static final List<String> CLASSES = List.of("jdk.internal.foreign.abi.NativeEntryPoint",
            "jdk.internal.foreign.abi.UpcallLinker", "jdk.internal.foreign.abi.UpcallStubs",
            "jdk.internal.misc.PreviewFeatures");

    private NativesAhead() {
    }

    /** Whether the natives the bridge calls first are resolved: false when one of the classes is missing. */
    static boolean resolve() {
        return resolve(CLASSES);
    }

    static boolean resolve(List<String> classes) {
        try {
            for (String name : classes) {
                Class.forName(name, true, null);
            }
            java.lang.reflect.Array.getLength(new int[0]);
            return true;
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            // Missing, or refused (a host's security manager): the load waits for the first stub.
            return false;
        }
    }
}
