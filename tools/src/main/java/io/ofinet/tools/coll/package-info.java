/**
 * A small collective engine over the {@code NetPlugin} API only: ranks in a ring, connected
 * through a rendezvous directory, running sendrecv, broadcast, allgather, reduce-scatter and ring
 * allreduce on registered direct buffers.
 */
package io.ofinet.tools.coll;
