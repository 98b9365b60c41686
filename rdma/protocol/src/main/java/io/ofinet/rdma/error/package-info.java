/**
 * The protocol's failure: {@link io.ofinet.rdma.error.RdmaException} with its NCCL-style {@link
 * io.ofinet.rdma.error.ErrorCategory}. A leaf package, so that every part of the protocol can
 * raise it without depending on the others.
 */
package io.ofinet.rdma.error;
