/**
 * The receive side of a connection: {@link io.ofinet.rdma.recv.RecvComm}, its requests and flushes,
 * the announcer that tells the sender where each receive's buffers are, the inbox of eager
 * messages that arrived before their receive, and what it knows of the sender's close. Given what
 * it uses of its endpoint at construction ({@link io.ofinet.rdma.comm.CommParts}); knows nothing of
 * the send side.
 */
package io.ofinet.rdma.recv;
