package io.ofinet.fabric.ofi;

import io.ofinet.fabric.ProviderPolicy;

import java.lang.System.Logger.Level;

/**
 * Chooses the data path: FFM on JDK 22+ (its class exists only in the multi-release part of the
 * jar, or at its root in the jars beside the NCCL library, which run on JDK 22+ only), JNA
 * otherwise or when the system property {@code ofinet.dataPath=jna} asks for it. The choice is made,
 * and FFM's calls linked, at the first use: {@link #name} names it before.
 */
final class DataPaths {
    /** System property that forces an implementation: {@code jna} or {@code ffm}. */
    static final String PROPERTY = "ofinet.dataPath";

    private static final System.Logger LOG = System.getLogger(DataPaths.class.getName());
    private static final String FFM = "io.ofinet.fabric.ofi.FfmDataPath";

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
        return Chosen.CURRENT;
    }

    /** The data path chosen and linked, at the first use (the JVM initialises this class once). */
    private static final class Chosen {
        static final DataPath CURRENT = choose();
    }

    /**
     * The name of the data path {@link #current} gives, without linking it: {@code "jna"} when
     * asked for or when FFM's class is not there, else {@code "ffm"} (unless its linking fails at
     * the first use, which is logged).
     */
    static String name() {
        if (System.getProperty(PROPERTY, "").equals("jna")) {
            return "jna";
        }
        try {
            Class.forName(FFM, false, DataPaths.class.getClassLoader());
            return "ffm";
        } catch (ClassNotFoundException | LinkageError e) {
            return "jna";
        }
    }

    private static DataPath choose() {
        String wanted = System.getProperty(PROPERTY, "");
        if (wanted.equals("jna")) {
            return new JnaDataPath();
        }
        try {
            Class<?> ffm = Class.forName(FFM);
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
