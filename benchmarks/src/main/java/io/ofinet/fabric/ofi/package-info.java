/**
 * JMH benchmarks of the data path: the FFM and JNA implementations of the same libfabric calls,
 * next to a C loop making those calls on the same objects. In the binding's package so that they
 * reach its native handles; run with {@code bin/ofinet-bench}.
 */
package io.ofinet.fabric.ofi;
