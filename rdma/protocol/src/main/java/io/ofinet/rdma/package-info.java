/**
 * The RDMA protocol's endpoint: devices and endpoints ({@link io.ofinet.rdma.Device}, {@link
 * io.ofinet.rdma.RdmaEndpoint}) with their step, pools and communicator table, the handshake, the
 * dispatch of what arrives, closes that wait for their peer, and the slow duties. This package
 * makes the parts in the packages below it and hands each what it uses: the send and receive
 * sides ({@code send}, {@code recv}), what they share ({@code comm}), the eager buffers ({@code
 * eager}), the transport ({@code rail}), data-path operations ({@code op}), and the leaves ({@code
 * progress}, {@code wire}, {@code seq}, {@code sched}, {@code freelist}, {@code error}). No
 * package below depends on this one.
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
