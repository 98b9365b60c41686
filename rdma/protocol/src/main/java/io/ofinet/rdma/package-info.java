/**
 * The RDMA protocol: devices, domains and endpoints with their control and data rails,
 * communicators, the handshake, announcements, striped RDMA writes with immediate data,
 * flush, freelists and the progress engine.
 *
 * <p><b>Ownership.</b> Everything of an endpoint — its progress engine and peer queues, operation
 * and control-buffer freelists, communicator tables, the state of its communicators and their
 * requests, its completion queues — has one owner at a time: the thread that holds the endpoint's
 * lock. Every entry point (listen, connect, accept, isend, irecv, iflush, test, register,
 * deregister, the closes and {@link io.ofinet.rdma.RdmaEndpoint#progress}) takes the lock for one
 * bounded step and lets it go before it returns, so communicators sharing the endpoint may be
 * driven from different threads. Nothing waits while holding it: a close that waits for its peer
 * takes the lock once per progress step. When the provider grants less than FI_THREAD_SAFE the
 * lock is the device's, held by all its endpoints alike ({@link io.ofinet.rdma.Device}). The one
 * thread of ofinet's own, a daemon watchdog, takes an endpoint that no application thread has
 * driven for 200 ms for one progress step, and only if it is free.
 */
package io.ofinet.rdma;
