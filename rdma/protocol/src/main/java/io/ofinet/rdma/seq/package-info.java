/** Message sequence numbers in a bounded window that wraps. */
package io.ofinet.rdma.seq;
