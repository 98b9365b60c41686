package io.ofinet.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.testing.ChildJvm;
import io.ofinet.tools.perf.OfinetPerf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The collective engine, which compiles against the plugin API only and finds ofinet through
 * ServiceLoader, across 2, 3 and 4 JVMs over real tcp;ofi_rxm on loopback: every collective at 0 B,
 * 4 B, 4 KiB, 1 MiB and 8 MiB, verified on every rank (pingpong over shm too). ofinet-perf starts the ranks; the test
 * starts ofinet-perf with a time bound and kills what is left.
 */
@Timeout(400)
class CollectivesIT {
    private static final String SIZES = "--sizes=0,4,4096,1000004,1048576,8388608";
    private static final boolean VECTOR_SUM = Runtime.version().feature() >= 25;

    /**
     * Runs ofinet-perf as bin/ofinet-perf does: on Java 25+ with the Vector API, which every rank's
     * sum then uses (rank 0's header says so).
     */
    private static String run(String... args) throws Exception {
        ChildJvm.Spec spec = new ChildJvm.Spec(OfinetPerf.class).args(args).bound(Duration.ofSeconds(300));
        if (VECTOR_SUM) {
            spec.jvmArgs("--add-modules=jdk.incubator.vector");
        }
        try (ChildJvm perf = spec.start()) {
            int status = perf.waitFor();
            assertEquals(0, status, perf.output());
            assertTrue(perf.output().contains(", sum " + (VECTOR_SUM ? "vector" : "tiled") + ";"), perf.output());
            return perf.output();
        }
    }

    /**
     * With 64 KiB chunks the allreduce cuts every block above 64 KiB and pipelines the pieces. Two
     * ranks make allreduces of up to 1 MiB in one exchange, and larger ones, or all of them with
     * {@code --exchange-max 0}, on the ring.
     */
    @ParameterizedTest
    @CsvSource({"2, 4M, 1M", "2, 64K, 0", "4, 4M, 1M", "3, 64K, 1M", "4, 64K, 1M"})
    void everyCollectiveIsRightOnEveryRank(int ranks, String chunk, String exchangeMax) throws Exception {
        String out = run("check", "--np", Integer.toString(ranks), SIZES, "--chunk", chunk, "--exchange-max",
                exchangeMax, "--timeout", "240");
        String way = ranks == 2 && !exchangeMax.equals("0") ? "exchange up to 1048576 B, ring above" : "ring";
        assertTrue(out.contains(", allreduce " + way + ", sum "), out);
        Matcher m = Pattern.compile("rank (\\d+): sendrecv, broadcast, reduce-scatter, allreduce of (\\d+) B: (\\d+) wrong")
                .matcher(out);
        int lines = 0;
        while (m.find()) {
            lines++;
            assertEquals("0", m.group(3), m.group());
        }
        assertEquals(ranks * 6, lines, out);
    }

    @ParameterizedTest
    @CsvSource({"2", "4"})
    void allgatherIsRightOnEveryRank(int ranks) throws Exception {
        assertEveryRowRight(timedRun("allgather", ranks));
    }

    /**
     * A ring step, every rank sending to the next and receiving from the previous at once: each
     * rank must hold the previous rank's values (with three ranks, next and previous differ).
     */
    @ParameterizedTest
    @CsvSource({"2", "3"})
    void exchangeDeliversThePreviousRanksBytes(int ranks) throws Exception {
        assertEveryRowRight(timedRun("exchange", ranks));
    }

    /**
     * Pingpong's second rank answers from its own buffer, or with {@code --echo} with the buffer it has
     * just received into: each rank checks that it received what the other sent (the other's values,
     * or with --echo its own back).
     */
    @ParameterizedTest
    @CsvSource({"shm, false", "shm, true"})
    void pingpongDeliversEachRanksValues(String provider, boolean echo) throws Exception {
        List<String> more = new ArrayList<>(List.of("--provider", provider));
        if (echo) {
            more.add("--echo");
        }
        assertEveryRowRight(timedRun("pingpong", 2, more.toArray(String[]::new)));
    }

    /** A short timed run of {@code test} at every size; a rank whose check fails makes it exit non-zero. */
    private static String timedRun(String test, int ranks, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(test, "--np", Integer.toString(ranks), SIZES, "--warmup", "1",
                "--iters", "2", "--reps", "2", "--untimed", "100", "--timeout", "240"));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    private static void assertEveryRowRight(String out) {
        // size, count, type, time, algbw, busbw, #wrong, disp(%)
        Matcher m = Pattern.compile("(\\d+)\\s+\\d+\\s+float\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+\\s+(\\d+)\\s+[\\d.]+$",
                Pattern.MULTILINE).matcher(out);
        int rows = 0;
        while (m.find()) {
            rows++;
            assertEquals("0", m.group(2), m.group());
        }
        assertEquals(6, rows, out);
        assertTrue(out.contains("#wrong"), out);
    }
}
