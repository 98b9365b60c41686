package io.ofinet.fabric.testing;

/**
 * The one factor that scales the tests' deadlines and timing parameters for a slow machine: the
 * system property {@code ofinet.test.timeFactor} (default 1; {@code bin/test-loaded --time-factor F}
 * sets it, as does {@code mvn -Dofinet.test.timeFactor=F}). A test derives its deadlines from the
 * parameter it tests, with a margin that holds on a machine with one busy loop per core beside the
 * tests; the factor is for machines slower than that, never a fix for a test that needs it there.
 */
public final class TestTime {
    /** The system property that holds the factor. */
    public static final String PROPERTY = "ofinet.test.timeFactor";
    /** The factor, at least 1. */
    public static final double FACTOR = factor(System.getProperty(PROPERTY, "1"));

    private TestTime() {
    }

    private static double factor(String text) {
        try {
            double f = Double.parseDouble(text.trim());
            if (f >= 1 && f <= 100) {
                return f;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(PROPERTY + " must be a number from 1 to 100, not \"" + text + "\"");
    }

    /** {@code ms} milliseconds scaled by the factor. */
    public static long ms(long ms) {
        return Math.round(ms * FACTOR);
    }

    /** {@code ms} milliseconds scaled by the factor, in nanoseconds. */
    public static long nanos(long ms) {
        return ms(ms) * 1_000_000L;
    }
}
