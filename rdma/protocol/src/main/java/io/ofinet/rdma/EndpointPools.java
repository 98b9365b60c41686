package io.ofinet.rdma;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.Parameters;
import io.ofinet.fabric.HostMemory;
import io.ofinet.mr.MrException;
import io.ofinet.mr.MrHandle;
import io.ofinet.mr.Registrar;
import io.ofinet.mr.Use;
import io.ofinet.rdma.comm.ControlBuffers;
import io.ofinet.rdma.eager.EagerBuffers;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.op.OpCounts;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.RailSet;
import java.util.List;

/**
 * What an endpoint hands out on the data path, made ahead and reused: pooled operations, the
 * registered control buffers (posted handshake receives, handshake sends and outgoing announcements), and the
 * flush buffer the flush reads into. Registered for the endpoint's rails; owned by the endpoint.
 */
final class EndpointPools implements ControlBuffers {
    /**
     * Control buffers per endpoint at most (4 KiB each, made as needed), unless those kept posted
     * and rdmaMaxPostedControlBuffers more need more.
     */
    private static final int MAX_CONTROL_BUFFERS = 4096;
    private static final long FLUSH_BYTES = 64;

    final RailSet rails;
    final int dataRails;
    private final int controlRails;
    final HostMemory memory;
    private final Registrar registrar;
    /** What the control buffers' posted receives hand arrivals to, and post through; set by {@link #open}. */
    ProgressEngine engine;
    EndpointHost host;
    ImmediateDispatcher immediates;
    Handshake handshake;

    /** What the pooled operations did. */
    final OpCounts counts = new OpCounts();
    /** The data-path operations; made by {@link #open}. */
    Ops ops;
    /** The eager buffers (posted on the data rails, held, or sending); made by {@link #open}. */
    EagerBuffers eager;
    private Freelist<ControlRailBuffer> controlBuffers;
    private long flushBuffer;
    private MrHandle flushMr;
    private boolean closed;

    EndpointPools(RailSet rails, int dataRails, int controlRails, HostMemory memory, Registrar registrar) {
        this.rails = rails;
        this.dataRails = dataRails;
        this.controlRails = controlRails;
        this.memory = memory;
        this.registrar = registrar;
    }

    /**
     * Makes the pools and posts the first receives: control buffers, and eager buffers or zero-byte
     * receives on the data rails. What arrives in them goes to {@code handshake} and {@code immediates}.
     */
    void open(ProgressEngine engine, DeviceParameters params, EndpointHost host, ImmediateDispatcher immediates,
            Handshake handshake) throws RdmaException {
        this.engine = engine;
        this.host = host;
        this.immediates = immediates;
        this.handshake = handshake;
        flushBuffer = memory.allocate(FLUSH_BYTES);
        flushMr = register(flushBuffer, FLUSH_BYTES, Use.FLUSH_BUFFER);
        int minPosted = (int) (long) params.get(Parameters.RDMA_MIN_POSTED_CONTROL_BUFFERS);
        int maxPosted = (int) (long) params.get(Parameters.RDMA_MAX_POSTED_CONTROL_BUFFERS);
        // Control rail 0 takes handshake messages and zero-byte messages (signals, errors); where announcements are sent
        // rather than written, every control rail takes them.
        int receivingRails = rails.noticeAfterWrite() ? controlRails : 1;
        controlBuffers = Freelist.<ControlRailBuffer>builder("control buffers",
                (block, address) -> new ControlRailBuffer(this, block, address))
                // Each outstanding receive holds one until its announcement is written: room for
                // many communicators, so that peers that do not answer cannot starve the others,
                // beside those kept posted on every receiving rail.
                .sizes(minPosted, minPosted, Math.max(receivingRails * minPosted + maxPosted, MAX_CONTROL_BUFFERS))
                .nativeEntries(ControlRailBuffer.BYTES, 64, blockMemory())
                .registered(registrar(Use.CONTROL_BUFFERS))
                .hooks(buffer -> {
                    engine.register(buffer.receive);
                    engine.register(buffer.send);
                }, buffer -> { })
                .build();
        for (int rail = 0; rail < receivingRails; rail++) {
            for (int i = 0; i < minPosted; i++) {
                controlBuffers.acquire().receive.postOn(rail);
            }
        }
        ops = new Ops(engine, counts, rails.noticeBehindWrite());
        eager = new EagerBuffers(rails, dataRails, host, immediates, engine, params);
        if (eager.enabled()) {
            // Posted eager receives take the data rails' zero-byte messages too.
            eager.open(blockMemory(), registrar(Use.DATA_BUFFERS));
        } else if (rails.dataRailsTakeZeroByteMessages()) {
            ZeroByteReceive.postAll(this);
        }
    }

    /** Freelist blocks from the host memory of the endpoint. */
    Freelist.BlockMemory blockMemory() {
        return new Freelist.BlockMemory() {
            @Override
            public long allocate(long bytes) {
                return memory.allocate(bytes);
            }

            @Override
            public void free(long address) {
                memory.free(address);
            }
        };
    }

    /** Registers freelist blocks for the endpoint's rails, for {@code use}. */
    Freelist.BlockRegistrar registrar(Use use) {
        return new Freelist.BlockRegistrar() {
            @Override
            public Object register(long address, long bytes) throws RdmaException {
                return EndpointPools.this.register(address, bytes, use);
            }

            @Override
            public void deregister(Object handle) throws RdmaException {
                EndpointPools.deregister((MrHandle) handle);
            }
        };
    }

    /** Registers {@code [address, address + bytes)} for the endpoint's rails, for {@code use}. */
    MrHandle register(long address, long bytes, Use use) throws RdmaException {
        try {
            return registrar.register(rails.registrationView(), address, bytes, use);
        } catch (MrException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e);
        }
    }

    static void deregister(MrHandle handle) throws RdmaException {
        try {
            handle.close();
        } catch (MrException e) {
            throw new RdmaException(ErrorCategory.SYSTEM, e.getMessage(), e);
        }
    }

    /** Control buffers taken and not given back (tests). */
    int controlBuffersInUse() {
        return controlBuffers.allocated() - controlBuffers.available();
    }

    /** A free control buffer, or null. */
    @Override
    public ControlRailBuffer acquire() throws RdmaException {
        return controlBuffers.acquire();
    }

    @Override
    public void release(ControlBuffers.Buffer buffer) {
        if (!closed) {
            controlBuffers.release((ControlRailBuffer) buffer);
        }
    }

    /** The flush buffer's registration (data rails). */
    MrHandle flushBuffer() {
        return flushMr;
    }

    /**
     * Deregisters the pools and the flush buffer, adding failures to {@code problems}; their
     * memory stays until {@link #free}, after the rails closed (buffers posted as receives may be
     * written until the endpoint is closed).
     */
    void deregister(List<Exception> problems) {
        closed = true;
        if (eager != null) {
            eager.closed();
        }
        for (Freelist<?> pool : pools()) {
            if (pool == null) {
                continue;
            }
            try {
                pool.deregister();
            } catch (Exception e) {
                problems.add(e);
            }
        }
        if (flushMr != null) {
            try {
                flushMr.close();
            } catch (Exception e) {
                problems.add(e);
            }
        }
    }

    private Freelist<?>[] pools() {
        return new Freelist<?>[] {controlBuffers, eager == null ? null : eager.freelist()};
    }

    /** Frees the pools' memory; the rails that used it are closed. */
    void free() {
        if (ops != null) {
            ops.close();
        }
        for (Freelist<?> pool : pools()) {
            if (pool != null) {
                pool.free();
            }
        }
        memory.free(flushBuffer);
        flushBuffer = 0;
    }
}
