package io.ofinet.rdma;

import io.ofinet.rdma.comm.CommHost;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.wire.Signal;

/**
 * The signals for the receive side of a connection (not {@link Signal#toSender()}): the sender's
 * keepalive and its close, handed to the receive communicator they name once {@link ArrivalChecks}
 * passed them. Called from progress, with the endpoint's lock held.
 */
final class ReceiverSignals {
    private final CommTable comms;
    private final CommHost host;
    private final ArrivalChecks checks;

    ReceiverSignals(CommTable comms, CommHost host, ArrivalChecks checks) {
        this.comms = comms;
        this.host = host;
        this.checks = checks;
    }

    /**
     * {@code signal}, carrying {@code value}, arrived on engine rail {@code rail} for receive
     * communicator {@code comm}; {@code upper} is the upper half of its CQ data.
     */
    void arrived(int rail, int comm, Signal signal, int value, long upper) {
        RecvComm recv = comms.recv(comm);
        switch (signal) {
            case KEEPALIVE_TO_RECEIVER -> {
                if (recv == null || recv.liveness() == null) {
                    if (!checks.lateForClosedRecv(comm, upper)) {
                        checks.unknownComm();
                    }
                } else if (checks.fromItsPeer(recv, rail, upper, "keepalive")) {
                    recv.liveness().heard(host.stepNanos());
                }
            }
            case SENDER_CLOSED -> {
                if (recv == null) {
                    if (!checks.lateForClosedRecv(comm, upper)) {
                        checks.unknownComm(); // else the sender's close crossed this side's: expected
                    }
                } else if (checks.fromItsPeer(recv, rail, upper, "close signal")) {
                    recv.liveness().heard(host.stepNanos());
                    recv.arrivals().closed(value, rail);
                }
            }
            default -> throw new IllegalArgumentException(signal + " is not for a receiver");
        }
    }
}
