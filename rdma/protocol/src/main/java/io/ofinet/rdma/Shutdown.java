package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JVM is ending: every device still open is closed from a shutdown hook, so that what the
 * provider leaves behind a process (shm's region names in {@code /dev/shm}) goes with it, and from
 * then on no close waits for a peer — a process ends promptly on SIGTERM whatever its peers do.
 * The hook is registered with the first device.
 */
final class Shutdown {
    private static final System.Logger LOG = System.getLogger(Shutdown.class.getName());
    private static final Set<Device> OPEN = ConcurrentHashMap.newKeySet();
    private static volatile boolean ending;
    private static boolean hooked;

    private Shutdown() {
    }

    /** Whether the JVM is ending: closes then do not wait for peers. */
    static boolean inProgress() {
        return ending;
    }

    static synchronized void track(Device device) {
        OPEN.add(device);
        if (!hooked) {
            hooked = true;
            try {
                Runtime.getRuntime().addShutdownHook(new Thread(Shutdown::closeAll, "ofinet-shutdown"));
            } catch (IllegalStateException alreadyEnding) {
                ending = true;
            }
        }
    }

    static void untrack(Device device) {
        OPEN.remove(device);
    }

    private static void closeAll() {
        ending = true;
        List<Device> devices = new ArrayList<>(OPEN);
        for (Device device : devices) {
            try {
                device.close();
            } catch (RdmaException | RuntimeException e) {
                LOG.log(Level.DEBUG, "closing device at shutdown: {0}", e.getMessage());
            }
        }
    }
}
