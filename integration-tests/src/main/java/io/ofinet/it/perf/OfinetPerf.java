package io.ofinet.it.perf;

import io.ofinet.it.coll.Collectives;
import io.ofinet.it.coll.Rendezvous;
import io.ofinet.it.coll.Ring;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ofinet-perf}: measures ofinet over the NetPlugin API in the spirit of nccl-tests.
 * Without a launcher it starts the other ranks as local processes itself; under {@code mpirun}
 * or {@code srun} it runs as the launcher's rank (give {@code --rendezvous} a directory all ranks
 * see). Rank 0 prints nccl-tests columns.
 */
@Command(name = "ofinet-perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measures ofinet over the NetPlugin API, nccl-tests style.%n"
                + "Tests: pingpong (one-way latency, RTT/2), sendrecv (bandwidth with a window of requests),"
                + " allreduce and allgather (ring, float32, across --np processes), check (every collective,"
                + " verified).")
public final class OfinetPerf implements Callable<Integer> {

    @Parameters(index = "0", defaultValue = "pingpong", description = "pingpong, sendrecv, allreduce, allgather or"
            + " check (default: ${DEFAULT-VALUE})")
    String test;

    @Option(names = "--provider", defaultValue = "tcp;ofi_rxm",
            description = "libfabric provider on loopback: tcp;ofi_rxm, shm, sockets (default: ${DEFAULT-VALUE})")
    String provider;

    @Option(names = "--layout", description = "a layout file (overrides --provider)")
    Path layout;

    @Option(names = {"-n", "--np"}, description = "processes (default: 2; pingpong and sendrecv use 2)")
    int np = 2;

    @Option(names = {"-b", "--min-bytes"}, converter = Sizes.class,
            description = "smallest size, with K, M or G as in nccl-tests (default: 8 for pingpong, else 1K)")
    Long minBytes;

    @Option(names = {"-e", "--max-bytes"}, defaultValue = "8M", converter = Sizes.class,
            description = "largest size (default: ${DEFAULT-VALUE})")
    long maxBytes;

    @Option(names = {"-f", "--factor"}, defaultValue = "2", description = "size multiplier (default: ${DEFAULT-VALUE})")
    int factor;

    @Option(names = "--sizes", split = ",", converter = Sizes.class,
            description = "explicit sizes instead of -b/-e/-f, e.g. 0,4,4K,1M")
    List<Long> sizes;

    @Option(names = {"-w", "--warmup"}, defaultValue = "100", description = "warm-up iterations (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = {"-i", "--iters"}, defaultValue = "100", description = "timed iterations (default: ${DEFAULT-VALUE})")
    int iters;

    @Option(names = "--window", defaultValue = "16", description = "sendrecv: requests in flight (default: ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--csv", description = "also write the results to this CSV file")
    Path csv;

    @Option(names = "--stats", description = "after the table, print rank 0's device statistics (messages,"
            + " bytes, refused posts, dropped arrivals by reason, ...) as '#' lines")
    boolean stats;

    @Option(names = "--rendezvous", description = "directory where ranks exchange handles (set by the tool, or"
            + " shared under mpirun/srun)")
    Path rendezvous;

    @Option(names = "--rank", hidden = true, description = "this process's rank (set by the tool)")
    Integer rank;

    @Option(names = "--timeout", defaultValue = "600", description = "seconds before the run is abandoned (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    public static void main(String[] args) {
        System.exit(new CommandLine(new OfinetPerf()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!List.of("pingpong", "sendrecv", "allreduce", "allgather", "check").contains(test)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "unknown test " + test
                    + "; choose pingpong, sendrecv, allreduce, allgather or check");
        }
        if (test.equals("pingpong") || test.equals("sendrecv")) {
            np = 2;
        }
        if (np < 2) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--np must be at least 2");
        }
        int[] launched = Rendezvous.fromLauncher(System.getenv());
        if (layout == null) {
            layout = writeLayout(provider);
        }
        System.setProperty("ofinet.layout", layout.toString());
        if (launched != null) {
            if (rendezvous == null) {
                throw new CommandLine.ParameterException(new CommandLine(this), "under mpirun/srun give --rendezvous"
                        + " a directory every rank sees");
            }
            return run(new Rendezvous(rendezvous, launched[0], launched[1]));
        }
        if (rank != null) {
            return run(new Rendezvous(rendezvous, rank, np));
        }
        rendezvous = Files.createTempDirectory("ofinet-perf");
        List<Process> children = new ArrayList<>();
        try {
            for (int r = 1; r < np; r++) {
                children.add(startRank(r));
            }
            int status = run(new Rendezvous(rendezvous, 0, np));
            for (int r = 1; r < np; r++) {
                Process child = children.get(r - 1);
                if (!child.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    System.err.println("ofinet-perf: rank " + r + " did not finish in time");
                    status = 1;
                } else if (child.exitValue() != 0) {
                    System.err.println("ofinet-perf: rank " + r + " failed (exit status " + child.exitValue() + ")");
                    status = 1;
                }
                Path log = rendezvous.resolve("rank" + r + ".log");
                if (Files.exists(log)) {
                    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                        if (!line.isBlank() && !line.startsWith("WARNING")) {
                            System.out.println(line);
                        }
                    }
                }
            }
            return status;
        } finally {
            for (Process child : children) {
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
            }
        }
    }

    /** A one-rail layout on loopback for a provider. */
    static Path writeLayout(String providerName) throws IOException {
        String domain = providerName.equals("shm") ? "shm" : "lo";
        String src = providerName.equals("shm") ? "" : ", \"srcAddr\": \"127.0.0.1\"";
        Path file = Files.createTempFile("ofinet-layout", ".json");
        Files.writeString(file, "{\"devices\": [{\"name\": \"" + providerName.replace("\"", "") + "/" + domain
                + "\", \"dataRails\": [{\"provider\": \"" + providerName.replace("\"", "") + "\", \"domain\": \""
                + domain + "\"" + src + "}]}]}");
        file.toFile().deleteOnExit();
        return file;
    }

    private Process startRank(int r) throws IOException {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java));
        if (Runtime.version().feature() >= 21) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OfinetPerf.class.getName(), test,
                "--layout", layout.toString(), "--np", Integer.toString(np), "--warmup", Integer.toString(warmup),
                "--iters", Integer.toString(iters), "--window", Integer.toString(window), "--rendezvous",
                rendezvous.toString(), "--rank", Integer.toString(r), "--timeout", Integer.toString(timeoutSeconds)));
        for (long size : sizes()) {
            command.add("--sizes=" + size);
        }
        // Each rank writes to its own log, printed after the run, so that lines do not interleave.
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(rendezvous.resolve("rank" + r + ".log").toFile()).start();
    }

    List<Long> sizes() {
        if (sizes != null && !sizes.isEmpty()) {
            return sizes;
        }
        List<Long> out = new ArrayList<>();
        long min = minBytes != null ? minBytes : test.equals("pingpong") ? 8 : 1024;
        for (long s = Math.max(min, 1); s <= maxBytes; s *= Math.max(2, factor)) {
            out.add(s);
        }
        return out;
    }

    private int run(Rendezvous rv) throws Exception {
        NetPlugin net = NetPlugins.load();
        net.init();
        Bench bench;
        try (Ring ring = new Ring(net, rv, 0)) {
            bench = new Bench(this, ring, new Collectives(ring), net);
            bench.run();
            if (stats && rv.rank() == 0) {
                System.out.println("# statistics of device 0, rank 0:");
                net.statistics(0).forEach((name, value) -> System.out.printf(Locale.ROOT, "# %-20s %d%n", name,
                        value));
            }
        } finally {
            net.close();
        }
        if (rv.rank() == 0 && csv != null) {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
                w.println("test,provider,ranks,size,count,type,time_us,algbw_gbs,busbw_gbs,wrong");
                for (String row : bench.csvRows) {
                    w.println(row);
                }
            }
        }
        return bench.wrongTotal == 0 ? 0 : 1;
    }

    /** The measurements of one rank. */
    static final class Bench {
        private final OfinetPerf options;
        private final Ring ring;
        private final Collectives coll;
        private final NetPlugin net;
        final List<String> csvRows = new ArrayList<>();
        private final Progress progress = Progress.onStderr();
        long wrongTotal;
        private boolean quiet;

        Bench(OfinetPerf options, Ring ring, Collectives coll, NetPlugin net) {
            this.options = options;
            this.ring = ring;
            this.coll = coll;
            this.net = net;
        }

        private boolean root() {
            return ring.rank() == 0;
        }

        void run() throws Exception {
            List<Long> sizes = options.sizes();
            long largest = sizes.stream().mapToLong(Long::longValue).max().orElse(0);
            int n = ring.size();
            long bytes = Math.max(64, options.test.equals("allgather") ? largest * n : largest);
            ByteBuffer data = ByteBuffer.allocateDirect((int) (2 * bytes + 64));
            Handles.MrHandle mr = ring.register(data);
            try {
                if (root()) {
                    System.out.printf(Locale.ROOT, "# ofinet-perf %s, %d ranks, layout %s; results checked after the"
                            + " timed iterations (#wrong: rank 0's count; any rank's mismatch fails the run)%n",
                            options.test, n, options.layout);
                    System.out.printf(Locale.ROOT, "#%12s %12s %8s %11s %12s %12s %7s%n", "size", "count", "type",
                            "time(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
                }
                if (!options.test.equals("check") && !sizes.isEmpty()) {
                    // One untimed pass first: JIT compilation and connection set-up would otherwise
                    // land in the first size's figures.
                    quiet = true;
                    measure(sizes.get(0), data, mr);
                    quiet = false;
                }
                int row = 0;
                for (long size : sizes) {
                    if (root()) {
                        progress.show(String.format(Locale.ROOT, "ofinet-perf: %s %d B (%d/%d) ", options.test, size,
                                ++row, sizes.size()));
                    }
                    measure(size, data, mr);
                }
                progress.clear();
            } finally {
                ring.deregister(mr);
            }
        }

        private ByteBuffer region(ByteBuffer data, long offset, long length) {
            return data.duplicate().clear().position((int) offset).limit((int) (offset + length)).slice();
        }

        private static float value(int rank, long i) {
            return (rank + 1) + (i % 13);
        }

        private void fill(ByteBuffer b, int rank, long elements) {
            for (long i = 0; i < elements; i++) {
                b.putFloat((int) (i * 4), value(rank, i));
            }
        }

        private void measure(long size, ByteBuffer data, Handles.MrHandle mr) throws Exception {
            String t = options.test;
            int n = ring.size();
            int r = ring.rank();
            long count = size / 4;
            ByteBuffer a = region(data, 0, size);
            ByteBuffer b = region(data, Math.max(64, (data.capacity() - 64) / 2), size);
            long wrong = 0;
            double timeUs;
            double factor;
            if (t.equals("check")) {
                timeUs = 0;
                factor = 0;
                wrong = check(size, data, mr);
            } else if (t.equals("pingpong")) {
                long start = 0;
                for (int i = 0; i < options.warmup + options.iters; i++) {
                    if (i == options.warmup) {
                        start = System.nanoTime();
                    }
                    if (r == 0) {
                        ring.step(a, null, mr);
                        ring.step(null, b, mr);
                    } else {
                        ring.step(null, b, mr);
                        ring.step(b, null, mr);
                    }
                }
                timeUs = (System.nanoTime() - start) / 1e3 / options.iters / 2;
                factor = 1;
                fill(a, 0, count);
                if (r == 0) {
                    ring.step(a, null, mr);
                    ring.step(null, b, mr);
                    for (long i = 0; i < count; i++) {
                        wrong += b.getFloat((int) (i * 4)) == value(0, i) ? 0 : 1;
                    }
                } else {
                    ring.step(null, b, mr);
                    ring.step(b, null, mr);
                }
            } else if (t.equals("sendrecv")) {
                ring.stream(a, mr, options.warmup, options.window, r == 0);
                long start = System.nanoTime();
                ring.stream(a, mr, options.iters, options.window, r == 0);
                timeUs = (System.nanoTime() - start) / 1e3 / options.iters;
                factor = 1;
                fill(a, 0, r == 0 ? count : 0);
                ring.stream(a, mr, 1, 1, r == 0);
                if (r == 1) {
                    for (long i = 0; i < count; i++) {
                        wrong += a.getFloat((int) (i * 4)) == value(0, i) ? 0 : 1;
                    }
                }
            } else if (t.equals("allreduce")) {
                long start = 0;
                for (int i = 0; i < options.warmup + options.iters; i++) {
                    if (i == options.warmup) {
                        start = System.nanoTime();
                    }
                    coll.allreduce(a, count, b, mr);
                }
                timeUs = (System.nanoTime() - start) / 1e3 / options.iters;
                factor = 2.0 * (n - 1) / n;
                fill(a, r, count);
                coll.allreduce(a, count, b, mr);
                wrong = verifySum(a, count, n);
            } else {
                ByteBuffer out = region(data, 0, size * n);
                long start = 0;
                for (int i = 0; i < options.warmup + options.iters; i++) {
                    if (i == options.warmup) {
                        start = System.nanoTime();
                    }
                    coll.allgather(out, count, mr);
                }
                timeUs = (System.nanoTime() - start) / 1e3 / options.iters;
                factor = (n - 1.0) / n;
                fill(region(out, (long) r * count * 4, count * 4), r, count);
                coll.allgather(out, count, mr);
                for (int k = 0; k < n; k++) {
                    ByteBuffer block = region(out, (long) k * count * 4, count * 4);
                    for (long i = 0; i < count; i++) {
                        wrong += block.getFloat((int) (i * 4)) == value(k, i) ? 0 : 1;
                    }
                }
                size = size * n;
            }
            // #wrong is this rank's check; every rank checks its own result and exits non-zero on a
            // mismatch, which fails the whole run.
            wrongTotal += wrong;
            if (root() && !quiet) {
                progress.clear();
                double algbw = timeUs == 0 ? 0 : size / (timeUs * 1e3);
                System.out.printf(Locale.ROOT, "%13d %12d %8s %11.2f %12.3f %12.3f %7d%n", size, size / 4, "float",
                        timeUs, algbw, algbw * factor, wrong);
                System.out.flush();
                csvRows.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,float,%.3f,%.4f,%.4f,%d", t,
                        options.provider, n, size, size / 4, timeUs, algbw, algbw * factor, wrong));
            }
        }

        private static long verifySum(ByteBuffer a, long count, int n) {
            long wrong = 0;
            for (long i = 0; i < count; i++) {
                float expected = n * (n + 1) / 2f + n * (i % 13);
                wrong += a.getFloat((int) (i * 4)) == expected ? 0 : 1;
            }
            return wrong;
        }

        /** Every collective at {@code size}, verified. */
        private long check(long size, ByteBuffer data, Handles.MrHandle mr) throws Exception {
            int n = ring.size();
            int r = ring.rank();
            long count = size / 4;
            long wrong = 0;
            ByteBuffer a = region(data, 0, size);
            ByteBuffer b = region(data, Math.max(64, (data.capacity() - 64) / 2), size);
            fill(a, r, count);
            coll.sendrecv(a, b, mr);
            int prev = Math.floorMod(r - 1, n);
            for (long i = 0; i < count; i++) {
                wrong += b.getFloat((int) (i * 4)) == value(prev, i) ? 0 : 1;
            }
            fill(a, r, count);
            coll.broadcast(a, mr);
            for (long i = 0; i < count; i++) {
                wrong += a.getFloat((int) (i * 4)) == value(0, i) ? 0 : 1;
            }
            fill(a, r, count);
            coll.reduceScatter(a, count, b, mr);
            long start = io.ofinet.it.coll.Collectives.blockStartOf(count, n, r);
            long elements = coll.blockElements(count, r);
            for (long i = start; i < start + elements; i++) {
                float expected = n * (n + 1) / 2f + n * (i % 13);
                wrong += a.getFloat((int) (i * 4)) == expected ? 0 : 1;
            }
            fill(a, r, count);
            coll.allreduce(a, count, b, mr);
            wrong += verifySum(a, count, n);
            System.out.printf(Locale.ROOT, "rank %d: sendrecv, broadcast, reduce-scatter, allreduce of %d B: %d wrong%n",
                    r, size, wrong);
            return wrong;
        }
    }
}
