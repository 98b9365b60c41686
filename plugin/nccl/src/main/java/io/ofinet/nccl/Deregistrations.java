package io.ofinet.nccl;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Deregistrations NCCL asks for while requests still use the memory. NCCL deregisters every handle
 * before it closes the communicators, also when it aborts with requests outstanding; it frees the
 * memory in between, and fails its teardown if deregMr fails. The Java API refuses such a
 * deregistration, and the door refuses it itself while a flush it keeps unposted uses the memory.
 * At the C door it succeeds: the registration leaves the door's table at once, and the
 * communicator the memory was registered for, when it has requests outstanding and no other live
 * thread drives it, closes there and then, ending its requests as a close does (the sender
 * confirms it writes no more, tagged receives are cancelled, sends drain; each within
 * peerTimeoutMs), so that nothing is written into or read from the memory once deregMr returns;
 * NCCL's close of it then succeeds at once. Where the memory is still in use after that, or the
 * communicator was left open, the plugin releases it once the requests using it have ended —
 * tried again as it is put in the list of those waiting, after each completed or failed request
 * and after each close.
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

    /**
     * Deregisters {@code r} now, closing its communicator first where its requests use the memory,
     * or once the requests still using it have ended; throws what is not "in use".
     */
    void deregister(CommEntry.Registration r) throws NetException {
        if (deregisteredNow(r)) {
            return;
        }
        if (closedForIt(r) && deregisteredNow(r)) {
            return;
        }
        synchronized (this) {
            pending.add(r);
            count = pending.size();
        }
        // A request that ended since the tries above found nothing waiting: tried once more now
        // that it waits, so that the release does not wait for a later completion.
        retry();
        if (waiting(r)) {
            log.info("deregMr: the memory is still used by outstanding requests; it is released once they end");
        }
    }

    private synchronized boolean waiting(CommEntry.Registration r) {
        return pending.contains(r);
    }

    /** Deregisters {@code r} unless something uses the memory; throws what is not "in use". */
    private boolean deregisteredNow(CommEntry.Registration r) throws NetException {
        if (r.heldByDoor()) {
            return false;
        }
        try {
            plugin.deregMr(r.comm(), r.mr());
            return true;
        } catch (NetException e) {
            if (e.result() != NetResult.INVALID_USAGE) {
                throw e;
            }
            return false;
        }
    }

    /**
     * Closes the communicator {@code r} was registered for, whose requests use its memory (NCCL
     * aborts); true when it is closed now, by this call or by one before it. Left open, false, where
     * it has no request outstanding (other users hold the memory) or another live thread drives it:
     * NCCL tears down only once its progress thread has stopped, and a close beside a thread still
     * driving the communicator would race it. A close that fails has ended the requests too: it is
     * logged, and the deregistration goes on.
     */
    private boolean closedForIt(CommEntry.Registration r) {
        CommEntry owner = r.owner();
        String name = CommEntry.name(owner.type);
        if (owner.requests == null || owner.requests.outstanding() == 0) {
            return false;
        }
        if (owner.drivenElsewhere()) {
            log.warn("deregMr: the memory is used by outstanding requests of its " + name + ", which thread \""
                    + owner.driver.getName() + "\" still drives: it is released once they end (NCCL deregisters"
                    + " memory in use only as it tears down, after its progress thread has stopped)");
            return false;
        }
        try {
            if (owner.closeIn(plugin)) {
                log.info("deregMr: the memory is used by outstanding requests of its " + name + ", as when NCCL"
                        + " aborts: the " + name + " was closed first, ending them; NCCL's close of it will find it"
                        + " closed");
            }
        } catch (Throwable t) {
            String why = t instanceof NetException ? t.getMessage() : "unexpected " + t;
            log.warn("deregMr: closing the " + name + " whose requests used the memory: " + why);
        }
        return true;
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
                try {
                    if (deregisteredNow(pending.get(i))) {
                        pending.remove(i);
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
