package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Signal;

/**
 * The signals for the send side of a connection ({@link Signal#toSender()}): the receiver's
 * keepalive, its close, its refusals of eager messages and its credits, handed to the send
 * communicator they name once {@link ArrivalChecks} passed them. Called from progress, with the
 * endpoint's lock held.
 */
final class SenderSignals {
    private final CommTable comms;
    private final SlowDuties duties;
    private final CommHost host;
    private final ArrivalChecks checks;

    SenderSignals(CommTable comms, SlowDuties duties, CommHost host, ArrivalChecks checks) {
        this.comms = comms;
        this.duties = duties;
        this.host = host;
        this.checks = checks;
    }

    /**
     * {@code signal}, carrying {@code value}, arrived on engine rail {@code rail} for send
     * communicator {@code comm}; {@code upper} is the upper half of its CQ data.
     */
    void arrived(int rail, int comm, Signal signal, int value, long upper) {
        switch (signal) {
            case KEEPALIVE_TO_SENDER -> keepalive(rail, comm, upper);
            case RECEIVER_CLOSING -> receiverClosing(rail, comm, value, upper);
            case TRUNCATED_TO_SENDER, RETIRED_TO_SENDER, CREDITS_TO_SENDER -> eagerPath(rail, comm, signal, value, upper);
            default -> throw new IllegalArgumentException(signal + " is not for a sender");
        }
    }

    private void keepalive(int rail, int comm, long upper) {
        SendComm send = comms.send(comm);
        if (send == null || send.liveness() == null) {
            if (!checks.lateForClosedSend(comm, upper)) {
                checks.unknownComm();
            }
        } else if (checks.fromItsPeer(send, rail, upper, "keepalive")) {
            send.liveness().heard(host.stepNanos());
        }
    }

    /** The receiver closes: the send communicator stops; {@code value} says whether it was its last word. */
    private void receiverClosing(int rail, int comm, int value, long upper) {
        SendComm send = comms.send(comm);
        if (send == null || send.isClosed()) {
            // Closed already (its confirmation went out at its close): the receiver's last
            // word, which frees the mailbox kept for it.
            if (value == Signal.CLOSING_FINAL && duties.releaseMailbox(comm, upper, checks)) {
                checks.lateForClosedComm();
            } else if (!checks.lateForClosedSend(comm, upper)) {
                checks.unknownComm();
            }
            return;
        }
        if (!checks.fromItsPeer(send, rail, upper, "close signal")) {
            return;
        }
        if (send.liveness() != null) { // a close signal may overtake the ACCEPT where rails do not keep order
            send.liveness().heard(host.stepNanos());
        }
        send.receiverClosing(value == Signal.CLOSING_FINAL);
        send.failQueued(new RdmaException(ErrorCategory.REMOTE, "isend: the receiver closed the connection"));
    }

    /** A refusal of eager message {@code value}, or credits returned: {@code value} in all, modulo 2^10. */
    private void eagerPath(int rail, int comm, Signal signal, int value, long upper) {
        SendComm send = comms.send(comm);
        if (send == null || send.isClosed() || send.liveness() == null) {
            checks.unknownComm();
            return;
        }
        boolean credits = signal == Signal.CREDITS_TO_SENDER;
        if (!checks.fromItsPeer(send, rail, upper, credits ? "credit signal" : "refusal")) {
            return;
        }
        if (signal == Signal.RETIRED_TO_SENDER) {
            send.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "send communicator " + send.id()
                    + ": the receiver sent signal " + signal.code() + ", which this protocol's version does not have"));
            return;
        }
        if (!credits) {
            send.eagerRefused(value);
            return;
        }
        try {
            send.creditsReturned(value);
        } catch (RdmaException e) {
            send.liveness().condemn(new RdmaException(ErrorCategory.REMOTE, "send communicator " + send.id()
                    + ": " + e.getMessage(), e));
        }
    }
}
