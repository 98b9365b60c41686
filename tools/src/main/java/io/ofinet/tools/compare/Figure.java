package io.ofinet.tools.compare;

import java.math.BigDecimal;

/**
 * One figure of a comparison: what {@code program} measured on {@code provider} at {@code size} bytes
 * in one round (one launch of it), in the unit of its {@link Measure}. The value keeps the digits
 * the program printed.
 */
record Figure(String program, String provider, Measure measure, long size, int round, BigDecimal value) {
}
