/**
 * The send side of a connection: {@link io.ofinet.rdma.send.SendComm}, its requests ({@link
 * io.ofinet.rdma.send.SendRequest}, whose states and transitions are named there), the sequencer
 * that matches queued sends to announced receives, and the writer that puts them on the wire.
 * Given what it uses of its endpoint at construction ({@link io.ofinet.rdma.comm.CommParts}); knows
 * nothing of the receive side.
 */
package io.ofinet.rdma.send;
