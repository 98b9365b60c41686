package io.ofinet.plugin.ofi;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Whether a JVM that hangs is spinning on a libfabric 1.17 shm region lock that a killed (or
 * ended) process left held (docs/FABRIC.md, "A shm peer killed inside a send or its own progress"), told from
 * anything else by what the process shows, not by trying again:
 *
 * <ol>
 *   <li>the lock word of a shm region the JVM maps is held, and still held a second later: the
 *       region of the killed process (killed inside its own progress) or the JVM's own (killed
 *       inside a send to it). A region starts with libfabric's {@code struct smr_region}: its
 *       version in the byte at offset 0 (4, {@code SMR_VERSION}), its owner's pid at offset 4 and
 *       its {@code pthread_spinlock_t} at offset 24 (1.17's {@code include/ofi_shm.h}). glibc's x86
 *       spinlock is 1 when free and 0 (below 0 with waiters) when held;
 *   <li>a thread of the JVM is on a CPU (state R in {@code /proc/PID/task/TID/stat}) with
 *       {@code pthread_spin_lock} on top of its native stack ({@code jhsdb jstack --mixed}, the
 *       JDK's serviceability agent, which cannot unwind further through the stripped libfabric),
 *       and its Java stack inside a call of ofinet's binding into libfabric ({@code jcmd PID
 *       Thread.print}: a thread in native code holds no safepoint up on shm, whose calls are not
 *       linked critical).
 * </ol>
 *
 * Both must hold; what is found either way is reported, for the test's skip reason or failure.
 */
final class ShmSpinEvidence {
    private static final System.Logger LOG = System.getLogger(ShmSpinEvidence.class.getName());
    /** Offsets in libfabric 1.17's struct smr_region, and its version there. */
    private static final int VERSION = 4;
    private static final int PID_OFFSET = 4;
    private static final int LOCK_OFFSET = 24;

    /** What was found; {@code hazard} when both kinds of evidence hold. */
    record Finding(boolean hazard, String summary, String details) {
    }

    private ShmSpinEvidence() {
    }

    /**
     * Looks at JVM {@code pid}, which hangs after process {@code gone} ({@code goneName}) ended or
     * stopped. What cannot be read (the process ended meanwhile, say) is the finding, not a throw.
     */
    static Finding examine(long pid, long gone, String goneName) throws InterruptedException {
        try {
            return look(pid, gone, goneName);
        } catch (IOException | RuntimeException e) {
            return new Finding(false, "the evidence could not be read: " + e, "");
        }
    }

    private static Finding look(long pid, long gone, String goneName) throws IOException, InterruptedException {
        Map<String, String> held = heldRegions(pid, gone, goneName);
        Thread.sleep(1000);
        Map<String, String> later = heldRegions(pid, gone, goneName);
        later.keySet().retainAll(held.keySet()); // the same regions, whatever their lock word's waiters
        List<String> stillHeld = new ArrayList<>(later.values());
        String mixed = run(pid, Path.of(System.getProperty("java.home"), "bin", "jhsdb").toString(), "jstack",
                "--mixed", "--pid");
        String java = run(pid, Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        List<String> spinning = spinningThreads(pid, mixed, java);
        String stacks = "jhsdb jstack --mixed:\n" + mixed + "\njcmd Thread.print:\n" + java;
        String summary = "shm region locks held for over a second: " + (stillHeld.isEmpty() ? "none" : stillHeld)
                + "; threads on a CPU in pthread_spin_lock inside a call of ofinet's binding into libfabric: "
                + (spinning.isEmpty() ? "none" : spinning);
        return new Finding(!stillHeld.isEmpty() && !spinning.isEmpty(), summary, stacks);
    }

    /**
     * The shm regions {@code pid} maps whose lock word is held, by region (its file's device and
     * inode, and name), each described with its owner. Read through the process's memory
     * ({@code /proc/PID/mem}, at each mapping of a region's start), so that a region whose name its
     * ended owner removed is seen too.
     */
    static Map<String, String> heldRegions(long pid, long gone, String goneName) throws IOException {
        Map<String, String> held = new LinkedHashMap<>();
        try (RandomAccessFile memory = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
                int at = line.indexOf("/dev/shm/");
                String[] fields = line.trim().split("\\s+");
                if (at < 0 || fields.length < 3 || Long.parseLong(fields[2], 16) != 0) {
                    continue; // not a shm mapping, or not of a file's start
                }
                String file = line.substring(at).replace(" (deleted)", "");
                long start = Long.parseUnsignedLong(fields[0].substring(0, fields[0].indexOf('-')), 16);
                byte[] head = new byte[LOCK_OFFSET + 4];
                try {
                    memory.seek(start);
                    memory.readFully(head);
                } catch (IOException e) {
                    LOG.log(Level.DEBUG, "{0}: {1}", file, e.toString());
                    continue;
                }
                ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
                int owner = b.getInt(PID_OFFSET);
                int lock = b.getInt(LOCK_OFFSET);
                String region = fields[3] + " " + fields[4] + " " + file;
                if (head[0] == VERSION && lock <= 0 && !held.containsKey(region)) { // the version is a byte
                    String whose = owner == gone ? goneName + "'s " + owner
                            : owner == pid ? "its own" : "process " + owner + "'s";
                    held.put(region, file + " (" + whose + " region, lock word " + lock + ")");
                }
            }
        }
        return held;
    }

    /**
     * Takes the lock of process {@code pid}'s own shm region, as that process does inside its
     * progress, from outside: what a kill inside its progress leaves behind. For the test that
     * the evidence is recognized.
     */
    static void holdOwnRegionLock(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
            int at = line.indexOf("/dev/shm/");
            if (at < 0) {
                continue;
            }
            try (RandomAccessFile region = new RandomAccessFile(line.substring(at), "rw")) {
                boolean ours = region.length() >= LOCK_OFFSET + 4 && region.read() == VERSION;
                region.seek(PID_OFFSET);
                if (ours && Integer.reverseBytes(region.readInt()) == pid) {
                    region.seek(LOCK_OFFSET);
                    region.writeInt(0); // held
                    return;
                }
            }
        }
        throw new IOException("process " + pid + " maps no shm region of its own");
    }

    /** Runs {@code command} with {@code pid} last (jcmd: then Thread.print) and returns its output. */
    private static String run(long pid, String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(command));
        args.add(Long.toString(pid));
        if (command[0].endsWith("jcmd")) {
            args.add("Thread.print");
        }
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /**
     * The threads whose top native frame in {@code mixed} is pthread_spin_lock, whose Java stack in
     * {@code java} has a frame of ofinet's binding (io.ofinet.fabric), and that are on a CPU: each
     * as its id and that frame.
     */
    static List<String> spinningThreads(long pid, String mixed, String java) throws IOException {
        List<String> found = new ArrayList<>();
        for (String block : mixed.split("(?m)^-{5,} ")) {
            String[] lines = block.split("\n");
            String tid = lines[0].replace("-", "").trim();
            String top = firstFrame(lines);
            String binding = bindingFrame(java, tid);
            if (top != null && top.contains("pthread_spin_lock") && binding != null && running(pid, tid)) {
                found.add("thread " + tid + ", " + binding);
            }
        }
        return found;
    }

    /** The first frame of ofinet's binding in the Java stack of thread {@code tid} in {@code java}, or null. */
    private static String bindingFrame(String java, String tid) {
        if (!tid.matches("\\d+")) {
            return null;
        }
        String hex = "0x" + Long.toHexString(Long.parseLong(tid));
        for (String block : java.split("\n\\s*\n")) {
            String header = block.lines().findFirst().orElse("");
            if (header.matches(".*\\bnid=(" + tid + "|" + hex + ")\\b.*")) {
                return block.lines().filter(l -> l.contains("io.ofinet.fabric.")).map(String::trim).findFirst()
                        .orElse(null);
            }
        }
        return null;
    }

    /** The first frame line of a thread's block (after its header lines). */
    private static String firstFrame(String[] lines) {
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith("0x")) {
                return lines[i];
            }
        }
        return null;
    }

    /** Whether thread {@code tid} of {@code pid} is on a CPU or waiting for one (state R). */
    private static boolean running(long pid, String tid) throws IOException {
        Path stat = Path.of("/proc/" + pid + "/task/" + tid + "/stat");
        if (!tid.matches("\\d+") || !Files.exists(stat)) {
            return false;
        }
        String text = Files.readString(stat);
        int close = text.lastIndexOf(')');
        return close > 0 && close + 2 < text.length() && text.charAt(close + 2) == 'R';
    }
}
