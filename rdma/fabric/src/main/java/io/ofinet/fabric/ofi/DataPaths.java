package io.ofinet.fabric.ofi;

import io.ofinet.fabric.ProviderPolicy;

import java.lang.System.Logger.Level;

/**
 * Chooses the data path: FFM on JDK 22+ (its class exists only in the multi-release part of the
 * jar, or at its root in the jars beside the NCCL library, which run on JDK 22+ only), JNA
 * otherwise or when the system property {@code ofinet.dataPath=jna} asks for it.
 */
final class DataPaths {
    /** System property that forces an implementation: {@code jna} or {@code ffm}. */
    static final String PROPERTY = "ofinet.dataPath";

    private static final System.Logger LOG = System.getLogger(DataPaths.class.getName());
    private static final DataPath CURRENT = choose();

    private DataPaths() {
    }

    /**
     * Whether {@code provider}'s posts and completion-queue reads may wait on another process:
     * libfabric 1.17's shm takes a spin lock in the shared memory of the peer it sends to, and in
     * its own, which a peer stopped or killed while holding it never releases (docs/FABRIC.md).
     * JNA's calls leave Java's thread state either way; FFM links such calls as ordinary ones.
     */
    static boolean waitsOnPeers(String provider) {
        return new ProviderPolicy(provider).waitsOnPeers();
    }

    static DataPath current() {
        return CURRENT;
    }

    private static DataPath choose() {
        String wanted = System.getProperty(PROPERTY, "");
        if (wanted.equals("jna")) {
            return new JnaDataPath();
        }
        try {
            Class<?> ffm = Class.forName("io.ofinet.fabric.ofi.FfmDataPath");
            return (DataPath) ffm.getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            if (wanted.equals("ffm")) {
                throw new IllegalStateException(PROPERTY + "=ffm needs a JDK 22 or newer; this is "
                        + Runtime.version(), e);
            }
            return new JnaDataPath();
        } catch (ReflectiveOperationException | LinkageError e) {
            LOG.log(Level.WARNING, "FFM data path unavailable, using JNA: {0}", e.toString());
            return new JnaDataPath();
        }
    }
}
