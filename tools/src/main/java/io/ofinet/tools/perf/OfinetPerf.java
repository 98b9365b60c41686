package io.ofinet.tools.perf;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import io.ofinet.tools.coll.Collectives;
import io.ofinet.tools.coll.Rendezvous;
import io.ofinet.tools.coll.Ring;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code ofinet-perf}: measures ofinet over the NetPlugin API in the spirit of nccl-tests.
 * Without a launcher it starts the other ranks as local processes itself; under {@code mpirun}
 * or {@code srun} it runs as the launcher's rank (give {@code --rendezvous} a directory all ranks
 * see). Rank 0 prints nccl-tests columns.
 */
@Command(name = "ofinet-perf", mixinStandardHelpOptions = true, sortOptions = false, subcommands = Capabilities.class,
        description = "Measures ofinet over the NetPlugin API, nccl-tests style.%n"
                + "Tests: pingpong (one-way latency, RTT/2), sendrecv (bandwidth with a window of requests),"
                + " drained (bandwidth in windows drained in order: --window sends posted, the oldest tested until"
                + " done, then the next, a 1-byte acknowledgement after each window),"
                + " exchange (each rank sends to the next and receives from the previous at once: one step of"
                + " the ring), allreduce and allgather (ring, float32, across --np processes), check (every"
                + " collective, verified); capabilities prints what this ofinet-perf supports, for scripts.")
public final class OfinetPerf implements Callable<Integer> {
    /** The tests, in the order the help names them. */
    static final List<String> TESTS = List.of("pingpong", "sendrecv", "drained", "exchange", "allreduce", "allgather",
            "check");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", defaultValue = "pingpong", description = "pingpong, sendrecv, drained, exchange,"
            + " allreduce, allgather or check (default: ${DEFAULT-VALUE})")
    String test;

    @Option(names = "--provider", defaultValue = "tcp;ofi_rxm",
            description = "libfabric provider on loopback: tcp;ofi_rxm, shm, sockets (default: ${DEFAULT-VALUE})")
    String provider;

    @Option(names = "--layout", description = "a layout file (overrides --provider)")
    Path layout;
    private boolean layoutGiven;

    @Option(names = {"-n", "--np"}, description = "processes (default: 2; pingpong, sendrecv and drained use 2)")
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

    @Option(names = {"-w", "--warmup"}, defaultValue = "100", description = "warm-up iterations per size"
            + " (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = {"--untimed", "--first-warmup"}, defaultValue = "10000", description = "untimed iterations"
            + " before each size, at most 1 GiB, and for at least 1 s (default: ${DEFAULT-VALUE}; --first-warmup is"
            + " its older name)")
    int untimed;

    @Option(names = {"-i", "--iters"}, description = "timed iterations per repetition, fewer for large sizes: at"
            + " most 256 MiB per repetition, at least 10 (default: as many as take about 50 ms, measured per size)")
    Integer iters;

    @Option(names = {"-r", "--reps"}, defaultValue = "5", description = "timed repetitions per size: the table shows"
            + " their median, and their spread in disp(%%) (default: ${DEFAULT-VALUE})")
    int reps;

    @Option(names = "--echo", description = "pingpong: the second rank sends back the buffer it has just received"
            + " instead of its own (fi_pingpong sends its own); on shm its copy then reads memory the other rank's"
            + " CPU has just written")
    boolean echo;

    @Option(names = "--window", defaultValue = "16",
            description = "sendrecv: requests in flight; drained: requests posted per window (default:"
                    + " ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--jit-quiet", defaultValue = "500", description = "each untimed pass goes on until the"
            + " JIT compilers of every rank have been idle this many ms (at most 30 s), and a warm-up or"
            + " repetition during which they worked is run again; 0: neither (default: ${DEFAULT-VALUE})")
    long jitQuietMs;

    @Option(names = "--chunk", defaultValue = "4M", converter = Sizes.class, description = "allreduce: the largest"
            + " message of the pipelined ring; blocks are cut into chunks of at most this size (default: 4M)")
    long chunk;

    @Option(names = "--exchange-max", defaultValue = "1M", converter = Sizes.class, description = "allreduce with"
            + " two ranks: up to this size, one exchange of the whole buffer and a sum; above it, the pipelined"
            + " ring; 0: always the ring (default: 1M)")
    long exchangeMax;

    @Option(names = "--head", converter = Sizes.class, description = "allreduce: the first part of each block,"
            + " sent as a message of its own ahead of the rest; 0: none (default: 8K on tcp;ofi_rxm without"
            + " --layout, else 0)")
    Long head;

    @Option(names = "--csv", description = "also write the results to this CSV file")
    Path csv;

    @Option(names = "--plot", description = "also draw the results into this PNG or SVG file (with gnuplot)")
    Path plot;

    @Option(names = "--stats", description = "after the table, print rank 0's device statistics (messages,"
            + " bytes, refused posts, dropped arrivals by reason, ...) as '#' lines")
    boolean stats;

    @Option(names = "--rendezvous", description = "directory where ranks exchange handles (set by the tool, or"
            + " shared under mpirun/srun, where each job uses a subdirectory of its own)")
    Path rendezvous;

    @Option(names = "--rank", hidden = true, description = "this process's rank (set by the tool)")
    Integer rank;

    @Option(names = "--timeout", defaultValue = "600",
            description = "seconds rank 0 waits for each of the other local ranks once its own part is done; a run"
                    + " bounded as a whole runs under timeout(1), as bin/ofinet-compare does (default:"
                    + " ${DEFAULT-VALUE})")
    int timeoutSeconds;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command, whose failures are one line naming what failed: the plugin's, a file's, a bad
     * value's. Anything else is a bug of the tool's, printed with its stack.
     */
    static CommandLine commandLine() {
        return new CommandLine(new OfinetPerf()).setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof NetException || e instanceof IOException) {
                command.getErr().println("ofinet-perf: " + (e instanceof NoSuchFileException ? "no such file: " : "")
                        + e.getMessage());
            } else {
                command.getErr().println("ofinet-perf: unexpected " + e);
                e.printStackTrace(command.getErr());
            }
            return 1;
        });
    }

    @Override
    public Integer call() throws Exception {
        if (!TESTS.contains(test)) {
            throw new CommandLine.ParameterException(new CommandLine(this), "unknown test " + test
                    + "; choose pingpong, sendrecv, drained, exchange, allreduce, allgather or check");
        }
        if (test.equals("pingpong") || test.equals("sendrecv") || test.equals("drained")) {
            np = 2;
        }
        PerfOptionChecks.check(this);
        int[] launched = Rendezvous.fromLauncher(System.getenv());
        layoutGiven = layout != null;
        if (layout == null) {
            layout = writeLayout(provider);
        }
        System.setProperty("ofinet.layout", layout.toString());
        if (launched != null) {
            if (rendezvous == null) {
                throw new CommandLine.ParameterException(new CommandLine(this), "under mpirun/srun give --rendezvous"
                        + " a directory every rank sees");
            }
            PerfOptionChecks.checkRun(this, launched[0], launched[1]);
            Path dir = Rendezvous.jobOf(System.getenv()).map(rendezvous::resolve).orElse(rendezvous);
            return run(new Rendezvous(dir, launched[0], launched[1]));
        }
        PerfOptionChecks.checkRun(this, rank == null ? 0 : rank, np);
        if (rank != null) {
            return run(new Rendezvous(rendezvous, rank, np));
        }
        rendezvous = Files.createTempDirectory("ofinet-perf");
        try (LocalRanks ranks = LocalRanks.start(np, rendezvous, r -> RankCommand.of(this, r))) {
            int status = run(new Rendezvous(rendezvous, 0, np));
            return ranks.await(status, timeoutSeconds);
        } finally {
            LocalRanks.deleteDirectory(rendezvous);
        }
    }

    /** The allreduce's head: as given, else {@link Collectives#HEAD_BYTES_ON_TCP} on tcp, where it measured faster. */
    long headBytes() {
        if (head != null) {
            return head;
        }
        return !layoutGiven && provider.startsWith("tcp") ? Collectives.HEAD_BYTES_ON_TCP : 0;
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

    /** The plot's caption: provider or layout, data path, ranks, date. */
    private String caption(Rendezvous rv) {
        return where() + ", data path " + dataPath() + ", " + rv.size() + " ranks, " + java.time.LocalDate.now();
    }

    /** The plot's name for this run in its legend: where, the data path and the date. */
    private String runName() {
        return where() + ", data path " + dataPath() + ", " + java.time.LocalDate.now();
    }

    /** The CSV's provider column: the provider, or the layout that chose the providers. */
    String providerColumn() {
        return (layoutGiven ? "layout " + layout.getFileName() : provider).replace(',', '_');
    }

    private String where() {
        return layoutGiven ? "layout " + layout.getFileName() : provider + ", 1 data rail on lo";
    }

    /** The binding's rule (DataPathIT pins it): FFM on JDK 22+ unless -Dofinet.dataPath=jna. */
    private static String dataPath() {
        return Runtime.version().feature() >= 22 && !"jna".equals(System.getProperty("ofinet.dataPath"))
                ? "FFM" : "JNA";
    }

    private int run(Rendezvous rv) throws Exception {
        NetPlugin net = NetPlugins.load();
        net.init();
        PerfBench bench;
        try (Ring ring = new Ring(net, rv, 0)) {
            bench = new PerfBench(this, ring, new Collectives(ring, chunk, headBytes(), exchangeMax));
            bench.run();
            if (stats && rv.rank() == 0) {
                System.out.println("# statistics of device 0, rank 0:");
                net.statistics(0).forEach((name, value) -> System.out.printf(Locale.ROOT, "# %-20s %d%n", name,
                        value));
            }
        } finally {
            net.close();
        }
        if (rv.rank() == 0 && (csv != null || plot != null)) {
            Path table = csv != null ? csv : Files.createTempFile("ofinet-perf", ".csv");
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(table, StandardCharsets.UTF_8))) {
                w.println(String.join(",", CsvTable.PERF_COLUMNS));
                for (String row : bench.csvRows) {
                    w.println(row);
                }
            }
            if (plot != null && !test.equals("check")) {
                Plot.render(plot, caption(rv), List.of(table), List.of(runName()));
            }
            if (csv == null) {
                Files.delete(table);
            }
        }
        return bench.wrongTotal == 0 ? 0 : 1;
    }
}
