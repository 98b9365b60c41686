package io.ofinet.tools.perf;

import io.ofinet.plugin.Handles;
import io.ofinet.tools.coll.Collectives;
import io.ofinet.tools.coll.Ring;
import io.ofinet.tools.perf.Workloads.Buffers;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The measurements of one rank. Before each size, an untimed pass of at least {@code
 * --untimed} iterations (10,000 by default; fewer for large sizes: at most 1 GiB moved) and
 * at least {@value #UNTIMED_MIN_NANOS} ns (rank 0's clock, which tells the others when to stop),
 * and until every rank's JIT compilers have been idle for {@code --jit-quiet} ms (at most {@value
 * #UNTIMED_MAX_NANOS} ns in all), takes the data path out of the interpreter, through the
 * JIT's compilations, and the connections through set-up. On two cores a compiler still at work
 * steals a core from the data path for milliseconds at a time: the 1 MiB allreduce measured 2–4
 * times slower right after the old one-second warm-up than after six seconds; and sizes take different
 * paths (eager messages, rendezvous writes), so a later size met code not yet compiled. Each size
 * then runs its warm-up and {@code --reps} timed repetitions of {@code --iters} iterations — by
 * default as many as take about {@value #REPETITION_NANOS} ns, from a short calibration that rank 0
 * times and broadcasts — fewer for large sizes (at most 256 MiB moved per repetition) and at least
 * 10; the table shows the median repetition and the spread of all of them, (max - min) / median, in
 * {@code disp(%)}. A warm-up or a repetition during which a rank's JIT compilers worked is run
 * again ({@link JitGate}); the CSV's {@code redone} counts the repetitions run again.
 */
final class PerfBench {
    /** The untimed pass before each size lasts at least this long. */
    static final long UNTIMED_MIN_NANOS = 1_000_000_000L;
    /** ... and at most this long waiting for the JIT compilers to go quiet. */
    static final long UNTIMED_MAX_NANOS = 30_000_000_000L;
    private static final long JIT_WARMUP_BYTES = 1L << 30;
    private static final long REPETITION_BYTES = 256L << 20;
    private static final int MIN_ITERATIONS = 10;
    /**
     * The alignment of the buffers measured, as in the C programs compared with ({@code fi_window},
     * {@code fi_pingpong}): on some CPUs the kernel's socket copies run several times slower for
     * some alignments of source and destination within 64 bytes (docs/PERFORMANCE.md).
     */
    private static final int PAGE = 4096;
    /** A repetition's length when {@code --iters} is not given. */
    static final long REPETITION_NANOS = 50_000_000L;
    private static final int CALIBRATION_ITERATIONS = 100;

    private final OfinetPerf options;
    private final Ring ring;
    private final Collectives coll;
    private final Workloads workloads;
    final List<String> csvRows = new ArrayList<>();
    private final Progress progress = Progress.onStderr();
    long wrongTotal;
    private boolean quiet;

    PerfBench(OfinetPerf options, Ring ring, Collectives coll) {
        this.options = options;
        this.ring = ring;
        this.coll = coll;
        this.workloads = new Workloads(ring, coll, options.echo, options.window);
    }

    private boolean root() {
        return ring.rank() == 0;
    }

    void run() throws Exception {
        List<Long> sizes = options.sizes();
        long largest = sizes.stream().mapToLong(Long::longValue).max().orElse(0);
        int n = ring.size();
        long bytes = Math.max(64, options.test.equals("allgather") ? largest * n : largest);
        if (2 * bytes + 64 + 2 * PAGE > Integer.MAX_VALUE) {
            throw new IllegalStateException(bytes + " bytes a buffer: beyond one direct ByteBuffer"
                    + " (PerfOptionChecks.MAX_BUFFER_BYTES should have refused it)");
        }
        int capacity = (int) (2 * bytes + 64);
        ByteBuffer data = ByteBuffer.allocateDirect(capacity + 2 * PAGE).alignedSlice(PAGE).slice(0, capacity);
        Handles.MrHandle mr = ring.register(data);
        try {
            if (root()) {
                System.out.printf(Locale.ROOT, "# ofinet-perf %s, %d ranks, layout %s, allreduce %s, sum %s; results"
                        + " checked after the timed iterations (#wrong: rank 0's count; any rank's mismatch fails the"
                        + " run)%n", options.test, n, options.layout, coll.allreduceWay(), coll.sumWay());
                System.out.printf(Locale.ROOT, "# Java %s at %s%n", Runtime.version(), System.getProperty("java.home"));
                System.out.printf(Locale.ROOT, "# the kernel's TCP congestion control: %s (loopback TCP moves at its"
                        + " pace: docs/PERFORMANCE.md)%n", congestionControl());
                if (!options.test.equals("check")) {
                    System.out.printf(Locale.ROOT, "# time: median of %d repetitions of %s (at most 256 MiB each),"
                            + " after, for each size, an untimed pass (at least 1 s, until the JIT compilers of every"
                            + " rank were idle for %d ms, at most 30 s) and %d warm-up iterations;"
                            + " disp(%%) = (max - min) / median%n", options.reps, options.iters != null
                            ? "up to " + options.iters + " iterations" : "about 50 ms", options.jitQuietMs, options.warmup);
                }
                System.out.printf(Locale.ROOT, "#%12s %12s %8s %11s %12s %12s %7s %8s%n", "size", "count", "type",
                        "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong", "disp(%)");
            }
            int row = 0;
            for (long size : sizes) {
                if (root()) {
                    progress.show(String.format(Locale.ROOT, "ofinet-perf: %s %d B (%d/%d) ", options.test, size,
                            ++row, sizes.size()));
                }
                if (!options.test.equals("check")) {
                    // An untimed pass first, for every size: JIT compilation (sizes take different
                    // paths: eager messages, rendezvous writes) and connection set-up would
                    // otherwise land in its figures.
                    quiet = true;
                    measure(size, data, mr);
                    quiet = false;
                }
                measure(size, data, mr);
            }
            progress.clear();
        } finally {
            ring.deregister(mr);
        }
    }

    /** Iterations a repetition may have at {@code size}: {@code --iters} or unbounded, fewer for large sizes. */
    private int maxIterations(long size) {
        long cap = options.iters != null ? options.iters : Integer.MAX_VALUE;
        return (int) Math.max(MIN_ITERATIONS, Math.min(cap, REPETITION_BYTES / Math.max(1, size)));
    }

    /**
     * Timed iterations per repetition at {@code size}: {@link #maxIterations}, or, without {@code
     * --iters}, as many as take {@link #REPETITION_NANOS} by a calibration run that rank 0 times
     * and broadcasts.
     */
    private int iterations(String t, Buffers x, ByteBuffer data, Handles.MrHandle mr) throws Exception {
        long size = x.size();
        int max = maxIterations(size);
        if (options.iters != null) {
            return max;
        }
        int calibration = Math.min(CALIBRATION_ITERATIONS, max);
        double perIterationUs = timed(t, calibration, x, mr) * (t.equals("pingpong") ? 2 : 1);
        long fit = (long) (REPETITION_NANOS / 1e3 / Math.max(perIterationUs, 1e-3));
        return (int) rootsValue(Math.max(MIN_ITERATIONS, Math.min(max, fit)), data, mr);
    }

    /**
     * Rank 0's {@code value} on every rank, broadcast through the last 8 bytes of {@code data}, which
     * lie past every test's buffers. Other ranks' arguments are ignored.
     */
    private long rootsValue(long value, ByteBuffer data, Handles.MrHandle mr) throws Exception {
        ByteBuffer flag = Workloads.region(data, data.capacity() - 8, 8);
        if (root()) {
            flag.putLong(0, value);
        }
        coll.broadcast(flag, mr);
        return flag.getLong(0);
    }

    /** Iterations of the untimed pass at {@code size}. */
    private int jitWarmup(long size) {
        return (int) Math.min(options.untimed, Math.max(MIN_ITERATIONS, JIT_WARMUP_BYTES / Math.max(1, size)));
    }

    /** Runs {@code iterations} of the test; returns microseconds per iteration (one way for pingpong). */
    private double timed(String t, int iterations, Buffers x, Handles.MrHandle mr) throws Exception {
        long start = System.nanoTime();
        workloads.iterate(t, iterations, x, mr);
        return (System.nanoTime() - start) / 1e3 / iterations / (t.equals("pingpong") ? 2 : 1);
    }

    /**
     * The untimed pass before a size: rounds of the test until rank 0 has run {@link #jitWarmup} iterations
     * and {@link #UNTIMED_MIN_NANOS}; after each round rank 0 broadcasts whether to go on.
     */
    private void untimedPass(String t, Buffers x, ByteBuffer data, Handles.MrHandle mr) throws Exception {
        long size = x.size();
        int round = Math.max(MIN_ITERATIONS, jitWarmup(size) / 10);
        long start = System.nanoTime();
        JitActivity jit = new JitActivity(options.jitQuietMs);
        int done = 0;
        boolean enough = false;
        while (!enough) {
            timed(t, round, x, mr);
            done += round;
            long elapsed = System.nanoTime() - start;
            boolean compiling = busyRanks(!jit.quiet(System.nanoTime()), data, mr) > 0;
            enough = rootsValue(done >= jitWarmup(size) && elapsed >= UNTIMED_MIN_NANOS
                    && (!compiling || elapsed >= UNTIMED_MAX_NANOS) ? 1 : 0, data, mr) == 1;
        }
    }

    /**
     * How many ranks say {@code busy}: a sum over the ring through the last 8 bytes of {@code
     * data}, which lie past every test's buffers.
     */
    private float busyRanks(boolean busy, ByteBuffer data, Handles.MrHandle mr) throws Exception {
        ByteBuffer flag = Workloads.region(data, data.capacity() - 8, 4);
        ByteBuffer tmp = Workloads.region(data, data.capacity() - 4, 4);
        flag.putFloat(0, busy ? 1 : 0);
        coll.allreduce(flag, 1, tmp, mr);
        return flag.getFloat(0);
    }

    private void measure(long size, ByteBuffer data, Handles.MrHandle mr) throws Exception {
        String t = options.test;
        int n = ring.size();
        Buffers x = Buffers.of(data, size, t, n);
        long wrong;
        double timeUs = 0;
        double dispersion = 0;
        int iterations = 0;
        int redone = 0;
        if (t.equals("check")) {
            wrong = workloads.checkCollectives(x, mr);
        } else if (quiet) {
            untimedPass(t, x, data, mr);
            return;
        } else {
            JitGate gate = new JitGate(new JitActivity(options.jitQuietMs), mine -> busyRanks(mine, data, mr) > 0,
                    k -> timed(t, k, x, mr), Math.min(options.warmup, maxIterations(size)));
            gate.warmUp();
            iterations = iterations(t, x, data, mr);
            double[] times = gate.repetitions(iterations, options.reps);
            redone = gate.redone();
            Arrays.sort(times);
            timeUs = median(times);
            dispersion = timeUs == 0 ? 0 : (times[times.length - 1] - times[0]) / timeUs * 100;
            wrong = workloads.verify(t, x, mr);
            if (t.equals("allgather")) {
                size = size * n;
            }
        }
        double factor = t.equals("check") ? 0 : Workloads.busFactor(t, n);
        // #wrong is this rank's check; every rank checks its own result and exits non-zero on a
        // mismatch, which fails the whole run.
        wrongTotal += wrong;
        if (root()) {
            progress.clear();
            double algbw = timeUs == 0 ? 0 : size / (timeUs * 1e3);
            System.out.printf(Locale.ROOT, "%13d %12d %8s %11.2f %12.3f %12.3f %7d %8.1f%n", size, size / 4, "float",
                    timeUs, algbw, algbw * factor, wrong, dispersion);
            if (redone > 0) {
                System.out.printf(Locale.ROOT, "#   %d of the repetitions above were run again: a JIT compiler worked"
                        + " during them%n", redone);
            }
            System.out.flush();
            // The columns of CsvTable.PERF_COLUMNS, in its order.
            csvRows.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,float,%.3f,%.4f,%.4f,%d,%.2f,%d,%d,%d", t,
                    options.providerColumn(), n, size, size / 4, timeUs, algbw, algbw * factor, wrong, dispersion,
                    t.equals("check") ? 0 : options.reps, iterations, redone));
        }
    }

    /**
     * The kernel's TCP congestion control, which sets loopback TCP's pace: under BBR a window that
     * empties moves more slowly than one that slides. "unknown" where /proc does not say.
     */
    static String congestionControl() {
        try {
            String name = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
            return name.isEmpty() ? "unknown" : name;
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The median of sorted {@code times}: the middle one, or the mean of the middle two. */
    static double median(double[] times) {
        int middle = times.length / 2;
        return times.length % 2 == 1 ? times[middle] : (times[middle - 1] + times[middle]) / 2;
    }
}
