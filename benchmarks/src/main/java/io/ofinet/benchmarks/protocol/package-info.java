/** Benchmarks of the protocol through its public API: one message through two endpoints. */
package io.ofinet.benchmarks.protocol;
