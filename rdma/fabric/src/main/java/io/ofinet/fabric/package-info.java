/**
 * The provider boundary: the Java interfaces through which everything above talks to libfabric.
 * The libfabric binding ({@code io.ofinet.fabric.ofi}) and the in-memory provider ({@code
 * io.ofinet.fabric.mem}, in the test fixture ofinet-fabric-mem) implement them. No native type
 * appears here.
 */
package io.ofinet.fabric;
