package io.ofinet.tools.perf;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/** The command that starts a local rank of ofinet-perf: a JVM like this one, with the run's options. */
final class RankCommand {
    /** The module of the Vector API, through which the collectives sum on Java 25+. */
    private static final String VECTOR_MODULE = "jdk.incubator.vector";

    private RankCommand() {
    }

    /** Whether the test sums: the allreduce, and check's reduce-scatter and allreduce. */
    private static boolean sums(String test) {
        return test.equals("allreduce") || test.equals("check");
    }

    /** The command that starts rank {@code r} of the run {@code o} describes. */
    static List<String> of(OfinetPerf o, int r) {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java));
        if (Runtime.version().feature() >= 21) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        if (sums(o.test) && ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent()) {
            // The ranks sum as this one does: through the Vector API when this JVM has its module
            // (bin/ofinet-perf adds it on JDK 25+). It is an incubator module: the JVM prints a
            // warning, which the rank logs leave out.
            command.add("--add-modules=" + VECTOR_MODULE);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), OfinetPerf.class.getName(), o.test,
                "--layout", o.layout.toString(), "--np", Integer.toString(o.np), "--warmup", Integer.toString(o.warmup),
                "--reps", Integer.toString(o.reps), "--untimed", Integer.toString(o.untimed),
                "--window", Integer.toString(o.window), "--chunk", Long.toString(o.chunk),
                "--head", Long.toString(o.headBytes()), "--exchange-max", Long.toString(o.exchangeMax),
                "--jit-quiet", Long.toString(o.jitQuietMs), "--rendezvous", o.rendezvous.toString(),
                "--rank", Integer.toString(r), "--timeout", Integer.toString(o.timeoutSeconds)));
        for (long size : o.sizes()) {
            command.add("--sizes=" + size);
        }
        if (o.iters != null) {
            command.add("--iters=" + o.iters);
        }
        if (o.echo) {
            command.add("--echo");
        }
        return command;
    }
}
