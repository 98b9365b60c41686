package io.ofinet.rdma;

import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.RepostQueue;
import io.ofinet.rdma.send.SendComm;
import java.util.List;

/**
 * An endpoint's step, the one bounded pass every call into the endpoint makes: it posts again the
 * receives the last step handled, reads the completion queues once (the clock read first: what
 * arrives in the step is heard at that time, {@link #nanos}), advances every connected send
 * communicator, and runs the slow duties when they are due, with the close of connects given up
 * ({@link Connector#closeGivenUp}). Owned by the endpoint and run holding it, like the engine it
 * reads.
 */
final class EndpointStep {
    /** Steps between reads of the control rails' queues while nothing is awaited there. */
    static final int QUIET_EVERY = 16;

    private final ProgressEngine engine;
    private final Handshake handshake;
    private final CommTable comms;
    private final SlowDuties duties;
    /** Kept receives whose arrival a step handled, posted again at the start of the next. */
    final RepostQueue reposts = new RepostQueue();
    private long nanos = System.nanoTime();
    /** A send communicator waits for an announcement or credits (at the last step). */
    private boolean awaitingAnnouncement;

    EndpointStep(ProgressEngine engine, Handshake handshake, CommTable comms, SlowDuties duties) {
        this.engine = engine;
        this.handshake = handshake;
        this.comms = comms;
        this.duties = duties;
    }

    /** One step; {@code everyRail} reads every rail's queue, for waits on a peer's signals. */
    int run(boolean everyRail) throws RdmaException {
        engine.expectOnQuietRails(everyRail || awaitingAnnouncement || handshake.busy());
        int handled = readQueues();
        List<SendComm> sends = comms.connectedSends();
        boolean awaiting = false;
        for (int i = 0; i < sends.size(); i++) {
            SendComm send = sends.get(i);
            send.progress();
            awaiting |= send.awaitsAnnouncement();
        }
        awaitingAnnouncement = awaiting;
        if (duties.runIfDue(nanos, sends, comms.connectedRecvs())) {
            handshake.closeGivenUp(nanos);
        }
        return handled;
    }

    /**
     * Posts again the receives whose arrivals the last step handled ({@link RepostQueue}), then
     * reads the queues once: the step's clock is read first, and what arrives in it is heard at
     * that time: one clock read per step, none per arrival.
     */
    int readQueues() throws RdmaException {
        reposts.postAll();
        nanos = System.nanoTime();
        return engine.progress();
    }

    /** When the current (or last) reading of the queues began: the time of what arrives in it. */
    long nanos() {
        return nanos;
    }

    /**
     * A send communicator has begun to wait for an announcement or credits since the last step:
     * the next step reads the control rails.
     */
    void expectAnnouncement() {
        awaitingAnnouncement = true;
    }

    /** Forgets the receives waiting to be posted again: the endpoint closed. */
    void clear() {
        reposts.clear();
    }
}
