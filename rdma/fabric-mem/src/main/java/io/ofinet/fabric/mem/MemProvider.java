package io.ofinet.fabric.mem;

import io.ofinet.fabric.Fabric;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.FabricProvider;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.InfoHints;
import io.ofinet.fabric.InfoList;
import java.util.List;
import java.util.Optional;

/**
 * The in-memory provider. Each instance is its own network: endpoints of one instance reach each
 * other, whatever domain or fabric they were opened from.
 */
public final class MemProvider implements FabricProvider {
    /** The provider name offers carry. */
    public static final String NAME = "mem";
    /** The capabilities every offer has; FI_SOURCE is added where the hints ask for it. */
    private static final long CAPS = InfoHints.PROTOCOL_CAPS | Fi.TAGGED | Fi.LOCAL_COMM | Fi.REMOTE_COMM;

    private final Config config;
    final MemNetwork network;

    private MemProvider(Config config) {
        this.config = config;
        this.network = new MemNetwork(config);
    }

    /** Settings of one instance. */
    public record Config(int mrMode, long mrKeySizeBytes, int txSize, int rxSize, int cqSize,
            long injectSizeBytes, int domains, long outOfOrderSeed, int threading, String name, int avEntriesMax) {
    }

    /** A provider with domain-scoped registrations, the usual case. */
    public static MemProvider create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder of a provider instance. */
    public static final class Builder {
        private int mrMode = Fi.MR_LOCAL | Fi.MR_ALLOCATED;
        private long mrKeySizeBytes = 8;
        private int txSize = 256;
        private int rxSize = 256;
        private int cqSize = 4096;
        private long injectSizeBytes = 64;
        private int domains = 4;
        private long outOfOrderSeed;
        private int threading = Fi.THREAD_SAFE;
        private String name = NAME;
        private int avEntriesMax;

        /** The mr_mode offers carry, e.g. with {@link Fi#MR_ENDPOINT} to require binding. */
        public Builder mrMode(int mode) {
            this.mrMode = mode;
            return this;
        }

        /** Registrations must be bound to their endpoint and enabled (FI_MR_ENDPOINT). */
        public Builder endpointMr() {
            this.mrMode |= Fi.MR_ENDPOINT;
            return this;
        }

        public Builder mrKeySize(long bytes) {
            this.mrKeySizeBytes = bytes;
            return this;
        }

        /** Posts outstanding per endpoint before posting answers -FI_EAGAIN. */
        public Builder txSize(int size) {
            this.txSize = size;
            return this;
        }

        public Builder rxSize(int size) {
            this.rxSize = size;
            return this;
        }

        /** Number of domains offered, {@code mem0}, {@code mem1}, ... (one per rail). */
        public Builder domains(int count) {
            this.domains = count;
            return this;
        }

        /**
         * Completion queues hand out ready entries in a random order drawn from this seed, as
         * SRD-style providers (EFA) do; 0 keeps posting order.
         */
        public Builder outOfOrderCompletions(long seed) {
            this.outOfOrderSeed = seed;
            return this;
        }

        /**
         * The threading model offered, {@link Fi#THREAD_SAFE} by default. With another, hints that
         * ask for FI_THREAD_SAFE get no offer, as libfabric's providers answer. (The provider itself
         * stays thread-safe: the model is what its offers promise.)
         */
        public Builder threading(int model) {
            this.threading = model;
            return this;
        }

        /**
         * The provider name its offers carry ({@value #NAME} by default), for tests of choices the
         * protocol makes by provider name; layouts then name it too.
         */
        public Builder named(String providerName) {
            this.name = providerName;
            return this;
        }

        /**
         * Each address vector takes at most {@code entries} inserts not removed, an address inserted
         * again counting again, as shm's does (SMR_MAX_PEERS in libfabric 1.17); past it an insert
         * fails with FI_ENOMEM. 0, the default: no limit.
         */
        public Builder avEntriesMax(int entries) {
            this.avEntriesMax = entries;
            return this;
        }

        public MemProvider build() {
            return new MemProvider(new Config(mrMode, mrKeySizeBytes, txSize, rxSize, cqSize,
                    injectSizeBytes, domains, outOfOrderSeed, threading, name, avEntriesMax));
        }
    }

    /** Starts recording the calls made on this instance: completion-queue reads and posts. */
    public void startRecordingCalls() {
        network.startRecording();
    }

    /**
     * Stops recording and returns the calls made since {@link #startRecordingCalls}, in order:
     * {@code fi_cq_read} for each completion-queue read, the libfabric call's name for each post.
     */
    public java.util.List<String> stopRecordingCalls() {
        return network.stopRecording();
    }

    /** Fault injection into this instance's network. */
    public MemFaults faults() {
        return network.faults();
    }

    @Override
    public io.ofinet.fabric.HostMemory memory() {
        return io.ofinet.fabric.ofi.NativeMemory.host();
    }

    @Override
    public String description() {
        return "in-memory provider";
    }

    /** The offer of one domain. */
    FabricInfo offer(String domain) {
        return offer(domain, 0);
    }

    /** The offer for {@code domain}, with {@link Fi#SOURCE} among {@code extraCaps} when asked for. */
    FabricInfo offer(String domain, long extraCaps) {
        return new FabricInfo(config.name(), "mem-fabric", domain, CAPS | (extraCaps & Fi.SOURCE), 0, config.mrMode(),
                config.mrKeySizeBytes(), 8, Long.MAX_VALUE, config.injectSizeBytes(), config.txSize(),
                config.rxSize(), 0, Fi.PROGRESS_MANUAL, Fi.PROGRESS_MANUAL, config.threading(), Fi.FORMAT_UNSPEC,
                (1 << 16) | 17, Optional.empty(), this);
    }

    @Override
    public InfoList getinfo(InfoHints hints) {
        // Like libfabric: no offer if the caller cannot handle a mode the provider requires.
        int required = config.mrMode() & (Fi.MR_ENDPOINT | Fi.MR_LOCAL | Fi.MR_VIRT_ADDR
                | Fi.MR_ALLOCATED | Fi.MR_PROV_KEY);
        boolean modesOk = (hints.mrMode() & required) == required;
        boolean providerOk = hints.provider().map(config.name()::equals).orElse(true);
        boolean threadingOk = hints.threading() == Fi.THREAD_UNSPEC || hints.threading() == config.threading();
        // Like libfabric: no offer without every capability asked for.
        boolean capsOk = (hints.caps() & ~(CAPS | Fi.SOURCE)) == 0;
        List<FabricInfo> infos = new java.util.ArrayList<>();
        if (modesOk && providerOk && threadingOk && capsOk) {
            for (int i = 0; i < config.domains(); i++) {
                String name = "mem" + i;
                if (hints.domain().map(name::equals).orElse(true)) {
                    infos.add(offer(name, hints.caps()));
                }
            }
        }
        List<FabricInfo> result = List.copyOf(infos);
        return new InfoList() {
            @Override
            public List<FabricInfo> infos() {
                return result;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public Fabric openFabric(FabricInfo info) throws FabricException {
        if (info.handle() != this) {
            throw new IllegalArgumentException("not an offer of this in-memory provider: " + info);
        }
        return new MemFabric(this, info);
    }
}
