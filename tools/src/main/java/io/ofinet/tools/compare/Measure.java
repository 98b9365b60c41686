package io.ofinet.tools.compare;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a figure measures, and in what unit the figures file holds it. */
enum Measure {
    /** One-way latency, in µs: lower is faster. */
    LATENCY("us"),
    /** Bandwidth with transfers in flight, in GB/s: a sliding window, one posted as soon as one completes. */
    BANDWIDTH("GB/s"),
    /**
     * Bandwidth in windows drained in order, in GB/s: a window of sends posted, the oldest tested
     * until done, then the next, a 1-byte acknowledgement after each window.
     */
    DRAINED("GB/s"),
    /** One step of the ring (each rank sends and receives at once), algbw in GB/s. */
    EXCHANGE("GB/s"),
    /** The allreduce, busbw in GB/s. */
    ALLREDUCE("GB/s"),
    /**
     * Where the host had placed the two CPUs while a latency launch ran: the one-way time of a cache
     * line between them in ns (bin/lib/cpu_distance.c), the larger of a reading before and one after.
     */
    LATENCY_PLACEMENT("ns"),
    /** The same for a bandwidth launch. */
    BANDWIDTH_PLACEMENT("ns"),
    /** The same for a drained launch. */
    DRAINED_PLACEMENT("ns");

    private final String unit;

    Measure(String unit) {
        this.unit = unit;
    }

    /** Whether the figure is a time (lower is faster) rather than a rate (higher is faster). */
    boolean time() {
        return !unit.equals("GB/s");
    }

    /** The unit the figures file holds it in: {@code us}, {@code ns} or {@code GB/s}. */
    String unit() {
        return unit;
    }

    /** The placement of the CPUs during this measure's launches. */
    Measure placement() {
        return switch (this) {
            case LATENCY -> LATENCY_PLACEMENT;
            case BANDWIDTH -> BANDWIDTH_PLACEMENT;
            case DRAINED -> DRAINED_PLACEMENT;
            default -> throw new IllegalArgumentException(this + " has no placement");
        };
    }

    /** The name in the figures file. */
    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Measure of(String label) throws IOException {
        for (Measure m : values()) {
            if (m.label().equals(label)) {
                return m;
            }
        }
        throw new IOException("unknown measure " + label + " (known: "
                + Arrays.stream(values()).map(Measure::label).collect(Collectors.joining(", ")) + ")");
    }
}
