/** Splitting a message into stripes over the data rails. */
package io.ofinet.rdma.sched;
