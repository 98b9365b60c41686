/**
 * The eager buffers of an endpoint ({@link io.ofinet.rdma.eager.EagerBuffers}): registered for its
 * data rails, each kept posted as a receive, holding an eager message whose receive is not posted
 * yet, or carrying an outgoing one ({@link io.ofinet.rdma.eager.EagerBuffer}). What arrives in them
 * goes to the endpoint's dispatch of arrivals ({@link io.ofinet.rdma.eager.EagerArrivals}).
 */
package io.ofinet.rdma.eager;
