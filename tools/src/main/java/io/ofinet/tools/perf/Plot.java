package io.ofinet.tools.perf;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Draws {@code ofinet-perf} results with Debian's gnuplot: one line per CSV file (a run, a
 * provider), message size against one-way latency (pingpong) or bandwidth (the others), both axes
 * logarithmic, into a PNG or an SVG chosen by the output's extension, with a caption. Used by
 * {@code ofinet-perf --plot FILE}, whose one line the legend names by the run, and by
 * {@code bin/ofinet-plot OUT CSV...}, whose lines it names by their files.
 */
public final class Plot {
    private Plot() {
    }

    /**
     * One line of a plot: its label in the legend, the ofinet-perf test its points come from
     * (pingpong: one-way latency in µs; the others: bandwidth in GB/s) and its (size, value) points.
     */
    public record Series(String title, String test, List<double[]> points) {
    }

    /** {@code Plot OUT.png|OUT.svg CAPTION CSV...} */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ofinet-plot OUT.png|OUT.svg CAPTION RESULTS.csv [MORE.csv ...]");
            System.exit(2);
        }
        List<Path> inputs = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            inputs.add(Path.of(args[i]));
        }
        try {
            render(Path.of(args[0]), args[1], inputs);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("ofinet-plot: " + (e instanceof NoSuchFileException ? "no such file: " : "")
                    + e.getMessage());
            System.exit(1);
        }
    }

    /** Reads an {@code ofinet-perf --csv} file; the series is titled with the file's name and provider. */
    static Series read(Path csv) throws IOException {
        CsvTable table;
        try {
            table = CsvTable.read(csv, "test", "provider", "size", "time_us", "algbw_gbs");
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw new IOException(csv + " is not an ofinet-perf CSV: " + e.getMessage(), e);
        }
        if (table.size() == 0) {
            throw new IOException(csv + ": no results");
        }
        List<double[]> points = new ArrayList<>();
        String test = table.get(0, "test");
        for (int row = 0; row < table.size(); row++) {
            try {
                double value = Double.parseDouble(table.get(row, test.equals("pingpong") ? "time_us" : "algbw_gbs"));
                points.add(new double[] {Double.parseDouble(table.get(row, "size")), value});
            } catch (NumberFormatException e) {
                throw new IOException(csv + ", row " + (row + 1) + ": not a number (" + e.getMessage() + ")", e);
            }
        }
        String name = csv.getFileName().toString().replaceFirst("\\.csv$", "");
        return new Series(name + " (" + table.get(0, "provider") + ")", test, points);
    }

    /** Renders the inputs into {@code out}, each named by its file; throws when gnuplot is missing or fails. */
    public static void render(Path out, String caption, List<Path> inputs) throws IOException, InterruptedException {
        render(out, caption, inputs, List.of());
    }

    /**
     * Renders the inputs into {@code out}, the legend naming the i-th input {@code labels.get(i)}
     * (an input past the end of {@code labels} is named by its file and provider); throws when
     * gnuplot is missing or fails.
     */
    public static void render(Path out, String caption, List<Path> inputs, List<String> labels)
            throws IOException, InterruptedException {
        List<Series> series = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            Series s = read(inputs.get(i));
            series.add(i < labels.size() ? new Series(labels.get(i), s.test(), s.points()) : s);
        }
        draw(out, caption, series);
    }

    /** Draws {@code series}, all of one test, into {@code out}; throws when gnuplot is missing or fails. */
    public static void draw(Path out, String caption, List<Series> series) throws IOException, InterruptedException {
        if (series.isEmpty()) {
            throw new IOException("nothing to draw into " + out);
        }
        String test = series.get(0).test();
        for (Series s : series) {
            if (!s.test().equals(test)) {
                throw new IOException("cannot draw " + test + " and " + s.test() + " results in one plot");
            }
        }
        String name = out.getFileName().toString().toLowerCase(Locale.ROOT);
        String terminal = name.endsWith(".svg") ? "svg size 1000,600 dynamic enhanced font 'sans,12'"
                : name.endsWith(".png") ? "pngcairo size 1000,600 enhanced font 'sans,11'" : null;
        if (terminal == null) {
            throw new IOException(out + ": the plot's file name must end in .png or .svg");
        }
        boolean latency = test.equals("pingpong");
        StringBuilder script = new StringBuilder();
        script.append("set terminal ").append(terminal).append('\n');
        script.append("set output ").append(quote(out.toAbsolutePath().toString())).append('\n');
        script.append("set title ").append(quote("ofinet " + test + ": " + caption)).append(" noenhanced\n");
        script.append("set xlabel 'message size (bytes)'\n");
        script.append("set ylabel ").append(quote(latency ? "one-way latency (us)" : "bandwidth (GB/s)")).append('\n');
        script.append("set logscale xy\nset format x '%.0s%cB'\nset grid\nset key left top noenhanced\n");
        script.append("plot ");
        for (int i = 0; i < series.size(); i++) {
            script.append(i == 0 ? "" : ", ").append("'-' using 1:2 with linespoints lw 2 title ")
                    .append(quote(series.get(i).title()));
        }
        script.append('\n');
        for (Series s : series) {
            for (double[] p : s.points()) {
                // Zero has no place on a log axis (a zero-byte message, a bandwidth of 0).
                if (p[0] > 0 && p[1] > 0) {
                    script.append(String.format(Locale.ROOT, "%.0f %.6g%n", p[0], p[1]));
                }
            }
            script.append("e\n");
        }
        Process gnuplot;
        try {
            gnuplot = new ProcessBuilder("gnuplot").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("--plot needs gnuplot (Debian's gnuplot-nox; bin/install-deps installs it)", e);
        }
        try (OutputStream in = gnuplot.getOutputStream()) {
            in.write(script.toString().getBytes(StandardCharsets.UTF_8));
        }
        String said = new String(gnuplot.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gnuplot.waitFor(60, TimeUnit.SECONDS) || gnuplot.exitValue() != 0) {
            gnuplot.destroyForcibly();
            throw new IOException("gnuplot failed drawing " + out + ": " + said.strip());
        }
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
