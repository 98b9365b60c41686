package io.ofinet.mr;

/** The two kinds of rail a registration is used on. */
public enum RailKind {
    /** Data rails: RDMA writes of payload, flush reads. */
    DATA,
    /** Control rails: announcements and the connection handshake. */
    CONTROL
}
