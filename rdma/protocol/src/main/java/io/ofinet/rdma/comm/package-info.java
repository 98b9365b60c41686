/**
 * What send and receive communicators share: the seam to their endpoint ({@link
 * io.ofinet.rdma.comm.CommHost}), requests and their pools ({@link io.ofinet.rdma.comm.Request},
 * {@link io.ofinet.rdma.comm.RequestPool}), a communicator's counts ({@link
 * io.ofinet.rdma.comm.CommStatistics}) and whether its peer is still there ({@link
 * io.ofinet.rdma.comm.PeerLiveness}). Below the send and receive packages, above the transport.
 */
package io.ofinet.rdma.comm;
