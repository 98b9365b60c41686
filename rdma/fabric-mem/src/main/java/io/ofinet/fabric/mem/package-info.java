/**
 * A pure-Java, deterministic implementation of the provider interfaces for unit tests of
 * everything above the fabric. It is strict where libfabric is strict (FI_MR_ENDPOINT binding
 * and enabling, key uniqueness, remote keys, access and bounds on every RMA, ordered closing),
 * configurable where providers differ (MR mode, queue sizes, completion order), and can inject
 * faults (failing posts, failing completions, peers that vanish).
 *
 * <p>Progress is manual and strict, like {@code tcp;ofi_rxm}'s: an operation reaches its target
 * only when the target reads its completion queue, and the initiator's completion is generated
 * then (delivery completion).
 */
package io.ofinet.fabric.mem;
