/** JMH benchmark of the collective engine's reduction, beside a C loop; run with {@code bin/ofinet-bench}. */
package io.ofinet.benchmarks.coll;
