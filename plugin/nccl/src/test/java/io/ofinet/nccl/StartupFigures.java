package io.ofinet.nccl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The figures {@code nccl_driver startup} prints for each rank (its lines {@code csv,RANK,FIGURE,VALUE,UNIT}),
 * and the order they must keep by how they are made: a part no larger than its whole, percentiles
 * in order, the JVM's memory and threads above the driver's own. No figure is held to a bound.
 */
final class StartupFigures {
    /** Every figure a rank reports. */
    static final Set<String> NAMES = Set.of("dlopen", "init", "start", "init.libjvm", "init.jvm", "init.bridge",
            "init.plugin", "init.rest", "listen", "connect", "accept", "regmr", "first.irecv", "first.isend",
            "first.test", "first.roundtrip", "cold.median", "tail.p50", "tail.p99", "tail.p99.9", "tail.p99.99",
            "rss.before", "rss.init", "rss.connect", "rss.end", "pss.init", "threads.before", "threads.init",
            "threads.connect", "threads.end", "map.libjvm", "map.aot", "map.modules", "map.libfabric", "map.files",
            "map.anonymous", "pss", "private");

    private static final Pattern LINE = Pattern.compile("(?m)^csv,(\\d),([a-z0-9.]+),(-?[0-9.]+),(ms|us|MiB|count)$");

    private StartupFigures() {
    }

    /** Each rank's figures by name, rank 0 first. */
    static List<Map<String, Double>> of(String output) {
        List<Map<String, Double>> ranks = new ArrayList<>();
        Matcher m = LINE.matcher(output);
        while (m.find()) {
            int rank = Integer.parseInt(m.group(1));
            while (ranks.size() <= rank) {
                ranks.add(new LinkedHashMap<>());
            }
            ranks.get(rank).put(m.group(2), Double.parseDouble(m.group(3)));
        }
        return ranks;
    }

    /** Every figure positive (a kind of mapping may hold nothing), and each in its place among the others. */
    static void check(Map<String, Double> r, String output) {
        r.forEach((name, value) -> assertTrue(name.startsWith("map.") ? value >= 0 : value > 0,
                name + " = " + value + "\n" + output));
        atMost(r, output, "dlopen", "start");
        atMost(r, output, "init", "start");
        // init.rest is init less its four measured parts: none may be more than init.
        for (String part : List.of("init.libjvm", "init.jvm", "init.bridge", "init.plugin", "init.rest")) {
            atMost(r, output, part, "init");
        }
        atMost(r, output, "tail.p50", "tail.p99");
        atMost(r, output, "tail.p99", "tail.p99.9");
        atMost(r, output, "tail.p99.9", "tail.p99.99");
        atMost(r, output, "rss.before", "rss.init");
        atMost(r, output, "threads.before", "threads.init");
        double mapped = r.entrySet().stream().filter(e -> e.getKey().startsWith("map.")).mapToDouble(Map.Entry::getValue)
                .sum();
        assertTrue(r.get("pss") <= mapped + 0.01 && r.get("private") <= mapped + 0.01,
                "Pss and private memory are parts of the resident memory mapped:\n" + output);
        assertTrue(r.get("map.libjvm") > 0, "libjvm.so is resident:\n" + output);
    }

    private static void atMost(Map<String, Double> r, String output, String part, String whole) {
        assertTrue(r.get(part) <= r.get(whole), part + " " + r.get(part) + " > " + whole + " " + r.get(whole) + "\n"
                + output);
    }
}
