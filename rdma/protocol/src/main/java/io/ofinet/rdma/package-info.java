/**
 * The RDMA protocol: devices, domains and endpoints with their control and data rails,
 * communicators, the handshake, control messages, striped RDMA writes with immediate data,
 * flush, freelists and the progress engine.
 */
package io.ofinet.rdma;
