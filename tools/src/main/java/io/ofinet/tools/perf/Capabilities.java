package io.ofinet.tools.perf;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code ofinet-perf capabilities}: what this ofinet-perf supports, a name a line, for a script that
 * drives another checkout's ofinet-perf ({@code bin/ofinet-compare --baseline}) and asks rather than
 * reading the help text. A checkout older than this command fails on it ("unknown test", exit status
 * 2), and has none of these names. Each name is an option or a test that older checkouts lack.
 */
@Command(name = "capabilities", mixinStandardHelpOptions = true,
        description = "Prints what this ofinet-perf supports, a name a line, for scripts: reps (--reps N),"
                + " untimed (--untimed N), jit-quiet (--jit-quiet MS), drained (the test).")
final class Capabilities implements Callable<Integer> {
    /** The names, each an option or a test of the same name that older checkouts lack. */
    static final List<String> NAMES = List.of("reps", "untimed", "jit-quiet", "drained");

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        NAMES.forEach(out::println);
        out.flush();
        return 0;
    }
}
