/**
 * JMH benchmarks of the data path: the FFM and JNA implementations of the same libfabric calls,
 * next to a C loop making those calls on the same objects, through the binding's public API and
 * its test fixture {@code DataPathProbe}; run with {@code bin/ofinet-bench}.
 */
package io.ofinet.benchmarks.fabric;
