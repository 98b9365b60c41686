/**
 * The C door: the Java side of {@code libnccl-net-ofinet.so}. {@link io.ofinet.nccl.NcclBridge}
 * hands the library one FFM upcall stub per operation of NCCL's net plugin table; {@link
 * io.ofinet.nccl.NcclDoor} carries each call to the same {@link io.ofinet.plugin.NetPlugin} the
 * Java door uses, maps the handles C holds through tables of its own, and returns NCCL's result
 * codes. Nothing thrown here reaches C.
 */
package io.ofinet.nccl;
