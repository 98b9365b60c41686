package io.ofinet.fabric.ofi;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * libfabric's exported functions. Everything else in its API is a {@code static inline} wrapper
 * over function pointers and is called through {@link Ops}.
 */
interface LibFabric extends Library {
    int fi_version();

    int fi_getinfo(int version, String node, String service, long flags, Pointer hints,
            PointerByReference info);

    void fi_freeinfo(Pointer info);

    Pointer fi_dupinfo(Pointer info);

    int fi_fabric(Pointer attr, PointerByReference fabric, Pointer context);

    String fi_strerror(int errnum);
}
