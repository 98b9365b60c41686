/**
 * The transport under the protocol: an endpoint's rails ({@link io.ofinet.rdma.rail.RailSet}: the
 * fabric endpoints, their queues and what the provider's policy says about them), the peers in its
 * address vectors with their queues ({@link io.ofinet.rdma.rail.Peers}), the other side of a
 * connection ({@link io.ofinet.rdma.rail.Connection}) and the check that a peer's process still
 * runs ({@link io.ofinet.rdma.rail.ProcessCheck}). Knows nothing of communicators.
 */
package io.ofinet.rdma.rail;
