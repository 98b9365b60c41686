package io.ofinet.config;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Command line: loads, validates and prints the active rail layout with the source of every
 * value. With an argument, that file is the layout; without, the layout named by {@code
 * OFINET_LAYOUT} or discovered. Exits with 2 when the layout is invalid.
 */
public final class ShowLayout {
    private ShowLayout() {
    }

    public static void main(String[] args) {
        System.exit(run(args, ConfigEnvironment.system(), System.out, System.err));
    }

    /** Runs the command; returns the exit status. */
    static int run(String[] args, ConfigEnvironment env, PrintStream out, PrintStream err) {
        Optional<RailLayout> layout = load(args, env, ServiceLoader.load(RailDiscovery.class).findFirst(), err);
        layout.ifPresent(l -> out.print(LayoutReport.render(l)));
        return layout.isPresent() ? 0 : 2;
    }

    /**
     * The layout the command's arguments name — the file given, else the configured or
     * discovered one — or empty after printing the usage or the configuration error to {@code err}
     * (exit status 2). Shared by the commands that show a layout.
     */
    public static Optional<RailLayout> load(String[] args, ConfigEnvironment env, Optional<RailDiscovery> discovery,
            PrintStream err) {
        if (args.length > 1 || (args.length == 1 && args[0].startsWith("-"))) {
            err.println("usage: ofinet-layout [LAYOUT.json]");
            err.println("  without an argument: the layout named by " + ConfigLoader.LAYOUT_ENV
                    + ", or one discovered from fi_getinfo");
            return Optional.empty();
        }
        try {
            return Optional.of(args.length == 1 ? ConfigLoader.loadFile(Path.of(args[0]), env)
                    : ConfigLoader.load(env, discovery));
        } catch (ConfigException e) {
            err.println("ofinet: invalid configuration: " + e.getMessage());
            return Optional.empty();
        }
    }
}
