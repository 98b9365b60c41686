package io.ofinet.rdma.rail;

import io.ofinet.rdma.wire.ProcessIdentity;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
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
    /**
     * Where {@code /proc/PID/stat} is read, under its own lock: a check runs every 250 ms per
     * communicator from the application's progress, and allocates only the file's handle and name.
     */
    private static final byte[] STAT = new byte[4096];
    /** This process, as peers see it in the handshake. */
    public static final ProcessIdentity SELF = self();

    private ProcessCheck() {
    }

    private static ProcessIdentity self() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            String pidNamespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            int pid = (int) ProcessHandle.current().pid();
            long start;
            synchronized (STAT) {
                int length = readStat(pid);
                start = startTicks(STAT, lastIndexOf(STAT, length, ')'), length);
            }
            if (start < 0) {
                throw new IOException("/proc/" + pid + "/stat has no start time");
            }
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
        synchronized (STAT) {
            int length;
            try {
                length = readStat(peer.pid());
            } catch (FileNotFoundException e) {
                // Also what a file that cannot be opened gives: only a missing process directory is an end.
                return new File("/proc/" + peer.pid()).exists() ? null
                        : "process " + peer.pid() + " has ended (no /proc/" + peer.pid() + ")";
            } catch (IOException e) {
                return null;
            }
            int close = lastIndexOf(STAT, length, ')');
            if (close < 0 || close + 2 >= length) {
                return null;
            }
            char state = (char) STAT[close + 2];
            if (state == 'Z' || state == 'X') {
                return "process " + peer.pid() + " has ended (state " + state + " in /proc)";
            }
            long start = startTicks(STAT, close, length);
            if (start >= 0 && start != peer.startTicks()) {
                return "process " + peer.pid() + " has ended (the pid now names a later process)";
            }
            return null;
        }
    }

    /** Reads {@code /proc/PID/stat} into {@link #STAT}; returns its length. The caller holds STAT. */
    private static int readStat(int pid) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile("/proc/" + pid + "/stat", "r")) {
            int length = 0;
            int n;
            while (length < STAT.length && (n = file.read(STAT, length, STAT.length - length)) > 0) {
                length += n;
            }
            return length;
        }
    }

    private static int lastIndexOf(byte[] bytes, int length, char c) {
        for (int i = length - 1; i >= 0; i--) {
            if (bytes[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Field 22 of {@code /proc/PID/stat}, the start time, or -1: fields are counted after the command's
     * last ')', at {@code close}, as the command may itself hold spaces and parentheses.
     */
    private static long startTicks(byte[] stat, int close, int length) {
        if (close < 0) {
            return -1;
        }
        int i = close + 2;
        for (int spaces = 0; spaces < 19 && i < length; i++) {
            if (stat[i] == ' ') {
                spaces++;
            }
        }
        long value = 0;
        int digits = 0;
        for (; i < length && stat[i] >= '0' && stat[i] <= '9'; i++, digits++) {
            value = value * 10 + (stat[i] - '0');
        }
        return digits == 0 ? -1 : value;
    }
}
