/**

 * Data-path operations: {@link io.ofinet.rdma.op.RmaOp}, one posted write, read, message or tagged
 * receive, pooled per endpoint in {@link io.ofinet.rdma.op.Ops} and counted in {@link
 * io.ofinet.rdma.op.OpCounts}. Below every other part of the protocol but the progress engine.
 */
package io.ofinet.rdma.op;
