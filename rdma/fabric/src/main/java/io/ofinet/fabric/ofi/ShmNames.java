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
 *
 * <p>A process that ends with no chance to clean (killed, or leaving through {@code _exit}) still
 * leaves its names. So before an endpoint is enabled, a region already under its name is removed
 * when the name carries this process's pid and no open endpoint of this process has it: it was left
 * by an earlier process with the same pid ({@link #removeStale}).
 */
final class ShmNames {
    private static final System.Logger LOG = System.getLogger(ShmNames.class.getName());
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

    /**
     * Before an shm endpoint with address {@code address} is enabled: removes a region already
     * under its name if the name begins with this process's pid ({@code <pid>:}) and no open
     * endpoint of this process has it. Returns whether one was removed.
     */
    static boolean removeStale(byte[] address) {
        String name = regionName(address);
        if (name == null || !name.startsWith(ProcessHandle.current().pid() + ":") || OPEN.contains(name)) {
            return false;
        }
        try {
            if (Files.deleteIfExists(DIRECTORY.resolve(name))) {
                LOG.log(System.Logger.Level.INFO, "removed /dev/shm/" + name + ", left by an earlier process with"
                        + " this pid: shm would not enable an endpoint of that name");
                return true;
            }
        } catch (IOException | SecurityException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot remove /dev/shm/" + name + ", left by an earlier process"
                    + " with this pid: " + e);
        }
        return false;
    }

    /**
     * Why a peer with shm address {@code address} cannot be reached, or null: its region's name is
     * gone from /dev/shm. shm 1.17 maps a peer's region by that name when it first sends to it; while
     * the name is missing ({@code shm_open} fails with ENOENT) it refuses every post to the peer with
     * -FI_EAGAIN, for good. A peer of this process is found without the name, and one already mapped
     * keeps its mapping: for those a missing name says nothing, so only a peer whose posts stay
     * refused is asked about.
     */
    static String missing(byte[] address) {
        String name = regionName(address);
        if (name == null || OPEN.contains(name) || Files.exists(DIRECTORY.resolve(name))) {
            return null;
        }
        return "its shm region /dev/shm/" + name + " is gone (removed by a cleaner, or by its process on the"
                + " way out), and shm cannot reach a peer whose region it cannot map";
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
