/**
 * The statistics of {@code bin/ofinet-compare} and {@code bin/ofinet-compare allreduce}: the scripts
 * launch the programs and write every figure as a line of a figures file ({@link Figures});
 * {@link CompareReport} reads it and prints the tables: medians, paired ratios (the median of each
 * round's own ratio), the fastest C scheme of each round, and the launches at the slow speed.
 */
package io.ofinet.tools.compare;
