package io.ofinet.tools.compare;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a figure measures, and in what unit the figures file holds it. */
enum Measure {
    /** One-way latency, in µs: lower is faster. */
    LATENCY(true),
    /** Bandwidth with transfers in flight, in GB/s. */
    BANDWIDTH(false),
    /** One step of the ring (each rank sends and receives at once), algbw in GB/s. */
    EXCHANGE(false),
    /** The allreduce, busbw in GB/s. */
    ALLREDUCE(false);

    private final boolean time;

    Measure(boolean time) {
        this.time = time;
    }

    /** Whether the figure is a time (lower is faster) rather than a rate (higher is faster). */
    boolean time() {
        return time;
    }

    /** The unit the figures file holds it in: {@code us} or {@code GB/s}. */
    String unit() {
        return time ? "us" : "GB/s";
    }

    /** The name in the figures file. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
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
