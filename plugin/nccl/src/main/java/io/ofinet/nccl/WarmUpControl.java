package io.ofinet.nccl;

import io.ofinet.plugin.NetPlugin;
import io.ofinet.rdma.BoundedWait;

/**
 * A door's warm-up ({@link WarmUp}): made and started at the door's first init, stopped at NCCL's
 * first {@code listen} or {@code connect}, so that it never runs beside NCCL's own connections or
 * transfers (every communicator comes from one of them), and waited for at the process's exit.
 */
final class WarmUpControl {
    /** How long the process's exit waits for a warm-up to close its device. */
    static final long EXIT_WAIT_MS = 5000;
    static final String NCCL_CONNECTS = "NCCL's first listen or connect";
    static final String EXIT = "the process's exit";

    private final WarmUp.Factory factory;
    private final NcclDoor.Log log;
    private volatile WarmUp current;

    WarmUpControl(WarmUp.Factory factory, NcclDoor.Log log) {
        this.factory = factory;
        this.log = log;
    }

    /** The warm-up {@code nccls} calls for, if any. It cannot fail init: one that does not start is logged. */
    void start(NetPlugin nccls) {
        try {
            WarmUp w = factory.make(nccls, log);
            if (w != null) {
                current = w;
                w.start();
            }
        } catch (Throwable t) {
            log.info("warm-up left out: " + t);
        }
    }

    /** NCCL connects: the warm-up ends after its round trip in flight, leaving the cores to NCCL. */
    void standAside() {
        WarmUp w = current;
        if (w != null) {
            w.stop(NCCL_CONNECTS);
        }
    }

    /**
     * The process is ending: a warm-up still running stops and closes its device, waited for at most
     * {@link #EXIT_WAIT_MS}, before libfabric's exit-time teardown can run under it, and before the
     * process ends inside one of its provider calls (docs/FABRIC.md, "Ending inside a call"). An
     * interrupt does not cut the wait short; it is kept for the caller.
     */
    void endAtExit() {
        WarmUp w = current;
        if (w == null) {
            return;
        }
        w.stop(EXIT);
        // Thread.join's zero waits for ever: the last moment waits a millisecond instead.
        boolean ended = BoundedWait.throughInterrupts(EXIT_WAIT_MS * 1_000_000L,
                nanos -> w.awaitEnd(Math.max(1, nanos / 1_000_000L)));
        if (!ended) {
            log.info("exit: the warm-up had not ended after " + EXIT_WAIT_MS + " ms");
        }
    }
}
