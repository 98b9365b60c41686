package io.ofinet.nccl;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Deregistrations NCCL asked for while requests still used the memory. NCCL deregisters every
 * handle before it closes the communicators, also when it aborts with requests outstanding, and
 * fails its teardown if deregMr fails; the Java API refuses such a deregistration, and the door
 * refuses it itself while a flush it keeps unposted uses the memory. At the C door it
 * succeeds: the registration leaves the door's table at once, and the plugin releases it when the
 * requests using it have ended or their communicator closed — tried again after each completed or
 * failed request and after each close. Nothing is written into the memory after closeRecv returns:
 * the close ends the requests first.
 */
final class Deregistrations {
    private final NetPlugin plugin;
    private final NcclDoor.Log log;
    private final List<CommEntry.Registration> pending = new ArrayList<>();
    /** {@code pending.size()}, read without the lock by the data path. */
    private volatile int count;

    Deregistrations(NetPlugin plugin, NcclDoor.Log log) {
        this.plugin = plugin;
        this.log = log;
    }

    /** Deregisters {@code r} now, or once its requests have ended; throws what is not "in use". */
    void deregister(CommEntry.Registration r) throws NetException {
        if (!r.heldByDoor()) {
            try {
                plugin.deregMr(r.comm(), r.mr());
                return;
            } catch (NetException e) {
                if (e.result() != NetResult.INVALID_USAGE) {
                    throw e;
                }
            }
        }
        synchronized (this) {
            pending.add(r);
            count = pending.size();
        }
        log.info("deregMr: the memory is still used by outstanding requests; it is released once they end or"
                + " their communicator closes");
    }

    /** Deregistrations still waiting for their requests. */
    int pending() {
        return count;
    }

    /**
     * Tries the waiting deregistrations again; cheap when there are none. Throws nothing: it runs
     * inside other operations, whose results it must not change.
     */
    void retry() {
        if (count == 0) {
            return;
        }
        synchronized (this) {
            for (int i = pending.size() - 1; i >= 0; i--) {
                CommEntry.Registration r = pending.get(i);
                if (r.heldByDoor()) {
                    continue;
                }
                try {
                    plugin.deregMr(r.comm(), r.mr());
                    pending.remove(i);
                } catch (NetException e) {
                    if (e.result() != NetResult.INVALID_USAGE) {
                        drop(i, e);
                    }
                } catch (Throwable t) {
                    drop(i, t);
                }
            }
            count = pending.size();
        }
    }

    /** Gives up waiting deregistration {@code i}, which failed with {@code cause}. */
    private void drop(int i, Throwable cause) {
        pending.remove(i);
        try {
            String why = cause instanceof NetException ? cause.getMessage() : "unexpected " + cause;
            log.warn("deregMr (deferred): " + why);
        } catch (Throwable ignored) {
            // Logging must not turn a result code into a crash.
        }
    }
}
