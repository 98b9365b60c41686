/** Bounded freelists of preallocated entries, optionally backed by registered native blocks. */
package io.ofinet.rdma.freelist;
