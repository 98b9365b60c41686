package io.ofinet.fabric.ofi;

import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads libfabric, then throws and catches NullPointerExceptions from implicit null checks
 * (the JVM's SIGSEGV path). {@code ofinet} mode loads through the binding; {@code raw} mode
 * loads libfabric.so.1 with plain JNA and no environment set, to show the hazard is real.
 * Prints whether psm's libinfinipath is mapped, and the count of exceptions survived.
 */
public final class NpeSurvivor {
    private NpeSurvivor() {
    }

    private static int length(String s) {
        return s.length();
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("raw")) {
            LibFabric raw = com.sun.jna.Native.load(OfiLibrary.LIBRARY, LibFabric.class);
            com.sun.jna.ptr.PointerByReference out = new com.sun.jna.ptr.PointerByReference();
            System.out.println("fi_getinfo: " + raw.fi_getinfo(OfiLibrary.API_VERSION, null, null, 0, null, out));
        } else {
            try (InfoList offers = new OfiProvider().getinfo(InfoHints.protocol().withProvider("tcp;ofi_rxm"))) {
                System.out.println("offers: " + offers.infos().size());
            }
        }
        String maps = Files.readString(Path.of("/proc/self/maps"));
        System.out.println("libinfinipath mapped: " + maps.contains("infinipath"));
        System.out.println("survived " + implicitNullChecks(5000));
    }

    /**
     * Throws and catches {@code count} NullPointerExceptions from implicit null checks (a SIGSEGV
     * the JVM handles), which exist only in JIT-compiled code: the method is warmed up until it is
     * compiled, then handed nulls.
     *
     * @return how many were caught
     */
    static int implicitNullChecks(int count) {
        String[] inputs = {"a", "bb", "ccc"};
        long total = 0;
        for (int i = 0; i < 2_000_000; i++) {
            total += length(inputs[i % 3]);
        }
        int survived = 0;
        for (int i = 0; i < count; i++) {
            try {
                total += length(null);
            } catch (NullPointerException expected) {
                survived++;
            }
        }
        return total > 0 ? survived : -1;
    }
}
