package io.ofinet.fabric.ofi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The names in {@code /dev/shm} of this process's open shm endpoints, removed when the JVM ends.
 *
 * <p>libfabric 1.17's shm removes an endpoint's name when the endpoint closes, and in its own
 * SIGTERM and SIGINT handlers, but not when the process exits otherwise. A JVM that exits without
 * closing ofinet would leave every name behind, each holding its region's memory (16 MiB), until a
 * process with the same pid comes; that process then cannot open a shm endpoint, because the name's
 * region belongs to a live pid, its own. Removing a name unmaps nothing: this process and the peers
 * that mapped the region keep it, and only a peer that has not mapped it yet no longer finds a
 * process that is ending anyway.
 */
final class ShmNames {
    private static final Path DIRECTORY = Path.of("/dev/shm");
    private static final Set<String> OPEN = ConcurrentHashMap.newKeySet();
    private static boolean hooked;

    private ShmNames() {
    }

    /** An shm endpoint with address {@code address} (from {@code fi_getname}) is open; returns its name, or null. */
    static String opened(byte[] address) {
        String name = regionName(address);
        if (name != null) {
            hook();
            OPEN.add(name);
        }
        return name;
    }

    /** The endpoint named {@code name} (null: none) has closed, and shm removed the name itself. */
    static void closed(String name) {
        if (name != null) {
            OPEN.remove(name);
        }
    }

    /**
     * The name of the region behind an shm address: the address ({@code fi_shm://<name>}, or the
     * name alone) up to its terminating NUL, without the scheme; null if that is no plain file name.
     */
    static String regionName(byte[] address) {
        int end = 0;
        while (end < address.length && address[end] != 0) {
            end++;
        }
        String text = new String(address, 0, end, StandardCharsets.US_ASCII);
        int scheme = text.indexOf("://");
        String name = scheme >= 0 ? text.substring(scheme + 3) : text;
        boolean plain = !name.isEmpty() && !name.equals(".") && !name.equals("..") && name.indexOf('/') < 0;
        return plain ? name : null;
    }

    private static synchronized void hook() {
        if (!hooked) {
            Runtime.getRuntime().addShutdownHook(new Thread(ShmNames::removeOpen, "ofinet-shm-names"));
            hooked = true;
        }
    }

    /** Removes the names of the endpoints still open: the JVM is ending. */
    static void removeOpen() {
        for (String name : OPEN) {
            try {
                Files.deleteIfExists(DIRECTORY.resolve(name));
            } catch (IOException | SecurityException e) {
                // Not ours to remove, or gone meanwhile: nothing to clean.
            }
        }
    }
}
