package io.ofinet.rdma.wire;

/**
 * Which process a handshake came from, as far as a peer on the same host can check it: a host
 * identity (the kernel's boot id and the pid namespace, hashed; 0 when unknown), the process id in
 * that namespace, and the process's start time in clock ticks since boot (which tells a process
 * from a later one that reuses its id). Peers whose host identities match can tell a process that
 * ended from one that is merely paused.
 */
public record ProcessIdentity(long host, int pid, long startTicks) {
    /** Nothing known: no check is made. */
    public static final ProcessIdentity NONE = new ProcessIdentity(0, 0, 0);

    /** Largest pid Linux hands out (PID_MAX_LIMIT). */
    static final int MAX_PID = 1 << 22;

    /** Whether a process with this identity can be checked from one with {@code other}'s. */
    public boolean sameHostAs(ProcessIdentity other) {
        return host != 0 && host == other.host && pid > 0 && other.pid > 0;
    }
}
