package io.ofinet.rdma.comm;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When each transfer passed each point of the protocol, for studies of where its time goes
 * (docs/PERFORMANCE.md, "A transfer's timeline"). Off unless the system property {@code
 * ofinet.timeline} names a file; the check is a constant the compiler folds, so that the data
 * path pays nothing while it is off. When on, the first {@link #CAPACITY} events are kept in
 * arrays made at start and written at exit to that file with the process id appended: a line per
 * event with its time ({@link System#nanoTime}: the machine's monotonic clock, so that the lines
 * of two processes on one machine can be merged), its name, the transfer's tag and ordinal (which
 * name it on both sides), and the tag of the request whose {@code test} was running when it
 * happened (-1: none, e.g. in a post).
 */
public final class Timeline {
    /** Whether events are kept. */
    public static final boolean ON = System.getProperty("ofinet.timeline") != null;
    static final int CAPACITY = 1 << 21;

    /** A send was posted. */
    public static final int SEND_POSTED = 0;
    /** The sender decoded the announcement of the buffer the send fills. */
    public static final int ANNOUNCED = 1;
    /** The send's data (a tagged message or writes) was handed to the provider's queue. */
    public static final int SENT = 2;
    /** The send's data operations completed. */
    public static final int SEND_LANDED = 3;
    /** A receive was posted (a line per buffer). */
    public static final int RECV_POSTED = 4;
    /** The receive's announcement was handed to the provider's queue. */
    public static final int ANNOUNCEMENT_SENT = 5;
    /** A buffer's data arrived (its tagged message completed). */
    public static final int RECV_LANDED = 6;
    /** {@code test} reported the request done. */
    public static final int DONE = 7;
    private static final String[] NAMES = {"send-posted", "announced", "sent", "send-landed", "recv-posted",
        "announcement-sent", "recv-landed", "done"};

    private static final Timeline KEPT = ON ? new Timeline(CAPACITY) : null;

    static {
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(Timeline::writeOut, "ofinet-timeline"));
        }
    }

    private final AtomicInteger next = new AtomicInteger();
    private final long[] nanos;
    private final int[] events;
    private final int[] tags;
    private final int[] ordinals;
    private final int[] testing;
    /** The tag of the request whose test runs now (-1: none). */
    private int tested = -1;

    /** A timeline that keeps the first {@code capacity} events. */
    Timeline(int capacity) {
        nanos = new long[capacity];
        events = new int[capacity];
        tags = new int[capacity];
        ordinals = new int[capacity];
        testing = new int[capacity];
    }

    /** Records {@code event} of the transfer with {@code tag} and {@code ordinal}; call only when {@link #ON}. */
    public static void record(int event, int tag, int ordinal) {
        KEPT.add(event, tag, ordinal);
    }

    /**
     * Writes the events kept so far to the file {@code ofinet.timeline} names, with the process id
     * appended (replacing what an earlier call wrote); nothing when off. Runs at the JVM's shutdown,
     * and where a host ends the process without it (NCCL's table, at exit).
     */
    public static void writeOut() {
        if (ON) {
            KEPT.writeTo(Path.of(System.getProperty("ofinet.timeline") + "." + ProcessHandle.current().pid()));
        }
    }

    /** A test of the request with {@code tag} begins ({@code -1}: it ended); call only when {@link #ON}. */
    static void testing(int tag) {
        KEPT.test(tag);
    }

    void add(int event, int tag, int ordinal) {
        int i = next.getAndIncrement();
        if (i < nanos.length) {
            nanos[i] = System.nanoTime();
            events[i] = event;
            tags[i] = tag;
            ordinals[i] = ordinal;
            testing[i] = tested;
        }
    }

    void test(int tag) {
        tested = tag;
    }

    /** Writes the events kept, in the order they were recorded, as CSV. */
    void write(Writer writer) {
        PrintWriter out = new PrintWriter(writer);
        out.println("nanos,event,tag,ordinal,testing");
        for (int i = 0, n = Math.min(next.get(), nanos.length); i < n; i++) {
            out.println(nanos[i] + "," + NAMES[events[i]] + "," + tags[i] + "," + ordinals[i] + "," + testing[i]);
        }
        out.flush();
    }

    private void writeTo(Path file) {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(out);
        } catch (IOException e) {
            System.getLogger(Timeline.class.getName()).log(System.Logger.Level.WARNING,
                    "the timeline could not be written to " + file + ": " + e.getMessage());
        }
    }
}
