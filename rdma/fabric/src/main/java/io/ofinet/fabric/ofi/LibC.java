package io.ofinet.fabric.ofi;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/** The few libc functions the binding needs. */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int setenv(String name, String value, int overwrite);

    String getenv(String name);

    Pointer strdup(String s);

    Pointer calloc(long count, long size);

    void free(Pointer p);

    /** {@code sigaction(2)}: {@code act} and {@code oldact} are opaque {@code struct sigaction} buffers or null. */
    int sigaction(int signum, Pointer act, Pointer oldact);
}
