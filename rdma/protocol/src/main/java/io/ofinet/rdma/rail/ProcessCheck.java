package io.ofinet.rdma.rail;

import io.ofinet.rdma.wire.ProcessIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * This process's {@link ProcessIdentity}, and whether a peer process on the same host has ended,
 * read from Linux's {@code /proc}. A process that was killed or exited is gone from {@code /proc}
 * (or is a zombie, or its pid now names a process that started later); a stopped one (SIGSTOP, a
 * debugger) is still there. Where {@code /proc} cannot be read, nothing is known and no check is
 * made.
 */
public final class ProcessCheck {
    private static final System.Logger LOG = System.getLogger(ProcessCheck.class.getName());
    /** This process, as peers see it in the handshake. */
    public static final ProcessIdentity SELF = self();

    private ProcessCheck() {
    }

    private static ProcessIdentity self() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            String pidNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            int pid = (int) ProcessHandle.current().pid();
            long start = startTicks(Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII));
            long host = 1125899906842597L;
            for (char c : (boot + "/" + pidNamespace).toCharArray()) {
                host = 31 * host + c;
            }
            return new ProcessIdentity(host == 0 ? 1 : host, pid, start);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no process identity for peers: {0}", e.toString());
            return ProcessIdentity.NONE;
        }
    }

    /**
     * What became of {@code peer}: null while it runs (or is stopped), else what was seen. Reads
     * {@code /proc/PID/stat} once.
     */
    public static String ended(ProcessIdentity peer) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc/" + peer.pid() + "/stat"), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return "process " + peer.pid() + " has ended (no /proc/" + peer.pid() + ")";
        } catch (IOException e) {
            return null;
        }
        try {
            int close = stat.lastIndexOf(')');
            char state = stat.charAt(close + 2);
            if (state == 'Z' || state == 'X') {
                return "process " + peer.pid() + " has ended (state " + state + " in /proc)";
            }
            if (startTicks(stat) != peer.startTicks()) {
                return "process " + peer.pid() + " has ended (the pid now names a later process)";
            }
            return null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Field 22 of {@code /proc/PID/stat}, the start time; fields are counted after the command's ')'. */
    private static long startTicks(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(fields[19]);
    }
}
