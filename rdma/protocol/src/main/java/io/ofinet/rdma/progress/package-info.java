/**
 * The progress engine: completion queues read in bounded batches, completions dispatched to the
 * operation they belong to, posts refused with -FI_EAGAIN retried in order before new work.
 */
package io.ofinet.rdma.progress;
