package io.ofinet.tools.compare;

import io.ofinet.tools.perf.Plot;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The statistics of {@code bin/ofinet-compare}, which launches the programs and keeps every figure
 * in a figures file ({@link Figures}): {@code figures} turns an ofinet-perf CSV into lines of that
 * file, {@code point-to-point}, {@code plot} and {@code allreduce} print or draw from it; {@code
 * startup-figures} and {@code startup} do the same for what a rank pays at start ({@link StartupFigures}).
 */
@Command(name = "ofinet-compare-report", mixinStandardHelpOptions = true,
        description = "The tables of bin/ofinet-compare, from its figures file (program,provider,measure,size,"
                + "round,value,unit: a figure a line).")
public final class CompareReport implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    private final PrintStream out;

    CompareReport(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(commandLine(new CompareReport(System.out)).execute(args));
    }

    /** The command line over {@code report}: an unreadable file or figure ends it with its message, exit status 1. */
    static CommandLine commandLine(CompareReport report) {
        return new CommandLine(report).setExecutionExceptionHandler((e, cl, parsed) -> {
            if (!(e instanceof IOException)) {
                throw e;
            }
            cl.getErr().println("ofinet-compare: " + (e instanceof java.nio.file.NoSuchFileException ? "no such file: "
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied: " : "") + e.getMessage());
            cl.getErr().flush();
            return 1;
        });
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name one: figures, point-to-point, plot,"
                + " allreduce, startup-figures or startup");
    }

    @Command(name = "figures", description = "Prints the figures of ofinet-perf --csv files as lines of the figures"
            + " file, one launch of the program named, read by column name: pingpong's time_us, sendrecv's,"
            + " drained's and exchange's algbw_gbs, allreduce's busbw_gbs.")
    int figures(@Option(names = "--program", required = true, description = "ofinet or baseline") String program,
            @Option(names = "--provider", required = true) String provider,
            @Option(names = "--round", required = true) int round,
            @Parameters(paramLabel = "CSV", arity = "1..*") List<Path> csvs) throws IOException {
        for (Path csv : csvs) {
            for (Figure f : Figures.fromPerfCsv(csv, program, provider, round)) {
                out.println(Figures.line(f));
            }
        }
        out.flush();
        return 0;
    }

    /** The options every table takes: the figures file and the rounds run. */
    static final class Run {
        @Option(names = "--figures", required = true, description = "the figures file")
        Path file;

        @Option(names = "--rounds", required = true, description = "the rounds run")
        int rounds;
    }

    /** The options of the point-to-point tables and their plot. */
    static final class PointToPoint {
        @Option(names = "--providers", required = true, split = ",")
        List<String> providers;

        @Option(names = "--latency-sizes", split = ",")
        List<Long> latencySizes;

        @Option(names = "--bandwidth-sizes", split = ",")
        List<Long> bandwidthSizes;

        @Option(names = "--baseline", description = "a baseline ran")
        boolean baseline;

        @Option(names = "--table", description = "the C driver ran through NCCL's table")
        boolean table;

        @Option(names = "--plugin", paramLabel = "LIB", description = "another plugin ran through the C driver"
                + " (program plugin): its library")
        String plugin;

        PointToPointReport report(Run run, PrintStream out) throws IOException {
            return new PointToPointReport(Figures.read(run.file), run.rounds, orNone(latencySizes),
                    orNone(bandwidthSizes), baseline, table, plugin, out);
        }
    }

    @Command(name = "point-to-point", description = "Prints, for each provider, the one-way latency, the bandwidth,"
            + " the drained window against the sliding one, through NCCL's table (--table) and the launches at the"
            + " slow speed.")
    int pointToPoint(@Mixin Run run, @Mixin PointToPoint options) throws IOException {
        options.providers.forEach(options.report(run, out)::print);
        out.flush();
        return 0;
    }

    @Command(name = "plot", description = "Draws the medians of one-way latency, ofinet and fi_pingpong for each"
            + " provider, into a PNG or SVG file (with gnuplot).")
    int plot(@Mixin Run run, @Mixin PointToPoint options, @Parameters(paramLabel = "OUT") Path plot)
            throws IOException, InterruptedException {
        PointToPointReport report = options.report(run, out);
        List<Plot.Series> series = new ArrayList<>();
        for (String provider : options.providers) {
            for (String program : List.of(PointToPointReport.OFINET, PointToPointReport.FI_PINGPONG)) {
                List<double[]> points = report.latencyMedians(program, provider);
                if (!points.isEmpty()) {
                    series.add(new Plot.Series(program + " (" + provider + ")", "pingpong", points));
                }
            }
        }
        Plot.draw(plot, "medians of " + run.rounds + " runs, one-way latency, " + LocalDate.now(), series);
        out.println("plot: " + plot);
        out.flush();
        return 0;
    }

    @Command(name = "allreduce", description = "Prints the allreduce against MPI_Allreduce and the exchange against"
            + " MPI_Sendrecv.")
    int allreduce(@Mixin Run run, @Option(names = "--sizes", required = true, split = ",") List<Long> sizes,
            @Option(names = "--steps", required = true, split = ",") List<Long> steps,
            @Option(names = "--baseline", description = "a baseline ran") boolean baseline) throws IOException {
        new AllreduceReport(Figures.read(run.file), run.rounds, baseline, out).print(sizes, steps);
        out.flush();
        return 0;
    }

    @Command(name = "startup-figures", description = "Prints the figures of one launch of nccl_driver startup (its"
            + " output's lines csv,RANK,FIGURE,VALUE,UNIT) as lines of the startup figures file"
            + " (program,round,rank,figure,value,unit).")
    int startupFigures(
            @Option(names = "--program", required = true, description = "ofinet, baseline or plugin") String program,
            @Option(names = "--round", required = true) int round,
            @Parameters(paramLabel = "OUTPUT") Path output) throws IOException {
        for (StartupFigures.RankFigure f : StartupFigures.fromDriver(output, program, round)) {
            out.println(StartupFigures.line(f));
        }
        out.flush();
        return 0;
    }

    @Command(name = "startup", description = "Prints what a rank pays at start: each figure's median over the"
            + " launches for each rank, from a startup figures file, and against a baseline (--baseline) and"
            + " another plugin (--plugin).")
    int startup(@Mixin Run run, @Option(names = "--baseline", description = "a baseline ran") boolean baseline,
            @Option(names = "--plugin", paramLabel = "LIB", description = "another plugin ran (program plugin): its"
                    + " library") String plugin) throws IOException {
        new StartupReport(StartupFigures.read(run.file), run.rounds, baseline, plugin, out).print();
        out.flush();
        return 0;
    }

    private static List<Long> orNone(List<Long> sizes) {
        return sizes == null ? List.of() : sizes;
    }
}
