package io.ofinet.fabric;

import java.util.Objects;

/**
 * What ofinet does differently on one provider, answered in one place from the provider's name as
 * its offer gives it ({@link FabricInfo#provider()}, e.g. {@code tcp;ofi_rxm}). Every "does this
 * provider ..." question of the binding and the protocol is asked here; nothing else compares
 * provider names (a build-rule test checks it). Each answer names its evidence: libfabric 1.17's
 * source, or a measurement in docs/.
 *
 * @param provider the provider's name, core provider first and utility providers after {@code ;}
 */
public record ProviderPolicy(String provider) {
    /**
     * libfabric 1.17's shm carries a message of up to this many bytes inline in its command; a
     * longer one goes through its response queue (docs/FABRIC.md).
     */
    public static final long SHM_INJECT_BYTES = 4096;
    /**
     * The largest eager message on {@code tcp} when {@code eagerMaxSize} is not set (docs/PROTOCOL.md,
     * "Eager messages").
     */
    public static final long TCP_EAGER_MAX_SIZE = 32768;
    /** Peers one shm address vector takes in libfabric 1.17 ({@code SMR_MAX_PEERS}). */
    public static final int SHM_MAX_PEERS = 256;

    public ProviderPolicy {
        Objects.requireNonNull(provider, "provider");
    }

    /** The policy of the provider of {@code info}. */
    public static ProviderPolicy of(FabricInfo info) {
        return new ProviderPolicy(info.provider());
    }

    private boolean shm() {
        return provider.equals("shm");
    }

    private boolean core(String name) {
        return provider.equals(name) || provider.startsWith(name + ";");
    }

    /**
     * Whether the provider's core is {@code tcp}, which needs no NIC of its own: the plugin's warm-up
     * at init makes a device on the loopback interface with the same provider where NCCL's rails
     * are all tcp (docs/NCCL.md, "The warm-up").
     */
    public boolean isTcp() {
        return core("tcp");
    }

    /**
     * Connections made on demand by {@code ofi_rxm}: a post to a peer whose connection broke is
     * refused while a new one is attempted; a new endpoint's first posts are refused until its
     * connection is up (docs/FABRIC.md).
     */
    public boolean connectsOnDemand() {
        return provider.contains("ofi_rxm");
    }

    /**
     * Whether the source the provider reports for an arrival can be trusted for messages but not
     * for remote writes: {@code ofi_rxm} reports no source for a write (docs/PROTOCOL.md, "What a
     * peer can forge"). Where the provider grants FI_SOURCE at all.
     */
    public boolean reportsWriteSources() {
        return !connectsOnDemand();
    }

    /**
     * Whether closing an endpoint not bound to both its address vector and its completion queue
     * crashes the process: {@code ofi_rxm} 1.17 dereferences them in {@code fi_close}.
     */
    public boolean crashesClosingHalfBoundEndpoints() {
        return connectsOnDemand();
    }

    /**
     * Whether a write with immediate data cut short by a close kills the process: libfabric 1.17's
     * {@code tcp} reports it with a NULL context, which {@code ofi_rxm} dereferences (CutWriteIT).
     * Writes are then announced by a message after them, and large buffers take tagged messages.
     */
    public boolean crashesOnCutImmediates() {
        return core("tcp") || core("net"); // net;ofi_rxm, which discovery offers too, crashes the same way
    }

    /**
     * Large sends that find no announcement send their first bytes at once by default: measured
     * faster on {@code tcp} only (docs/measurements, "Heads in the protocol").
     */
    public boolean headsByDefault() {
        return core("tcp");
    }

    /**
     * The largest write announced by its immediate data by default; a longer one by a notice after
     * it: on shm up to its inject size, so that a stopped peer holds up no other peer's writes
     * (docs/PROTOCOL.md, "Write notices"). Unbounded elsewhere.
     */
    public long immediateWritesUpTo() {
        return shm() ? SHM_INJECT_BYTES : Long.MAX_VALUE;
    }

    /**
     * The largest message that completes at once whatever its peer does: shm's inline messages;
     * longer ones complete in order across all peers. Unbounded elsewhere.
     */
    public long messagesCompleteAtOnceUpTo() {
        return shm() ? SHM_INJECT_BYTES : Long.MAX_VALUE;
    }

    /**
     * The largest eager message where {@code eagerMaxSize} is not set: {@link #TCP_EAGER_MAX_SIZE}
     * on {@code tcp}, where a message of up to 32 KiB arrives sooner copied through an eager buffer
     * than sent after its receiver's announcement (docs/measurements, "tcp: eager messages up to 32
     * KiB"); the parameter's default, {@code parameterDefault}, elsewhere.
     */
    public long eagerMaxSizeByDefault(long parameterDefault) {
        return core("tcp") ? TCP_EAGER_MAX_SIZE : parameterDefault;
    }

    /**
     * Whether one tagged message is bounded by {@code ofi_rxm}'s eager limit: a larger one goes
     * through rxm's own rendezvous ({@link RxmEagerLimit}).
     */
    public boolean taggedBoundedByRxmEagerLimit() {
        return connectsOnDemand();
    }

    /**
     * Whether posts and completion-queue reads may wait on another process: shm 1.17 takes a spin
     * lock in the shared memory of the peer it sends to and in its own (docs/FABRIC.md). The FFM
     * data path then links them as ordinary calls, so the JVM's safepoints go on.
     */
    public boolean waitsOnPeers() {
        return shm();
    }

    /**
     * Whether the provider names its endpoints in {@code /dev/shm} and leaves the names behind when
     * a process exits without closing them: shm 1.17 (docs/FABRIC.md).
     */
    public boolean namesEndpointsInDevShm() {
        return shm();
    }

    /**
     * Whether a live peer's address may leave the address vector and come back: not on shm, which
     * then names the removed entry as the source of what the peer sends (ManyPeersIT).
     */
    public boolean removesLivePeers() {
        return !shm();
    }

    /** Peer addresses one address vector takes at most, every insert counted; 0 where none is known. */
    public int addressVectorLimit() {
        return shm() ? SHM_MAX_PEERS : 0;
    }

    /**
     * Whether this is a utility provider layered on others that rail discovery passes over:
     * {@code ofi_mrail} (ofinet stripes over rails itself) and {@code ofi_hook} (instrumentation).
     */
    public boolean utilityOnly() {
        return provider.contains("ofi_mrail") || provider.contains("ofi_hook");
    }
}
