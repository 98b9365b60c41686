package io.ofinet.rdma.eager;

import io.ofinet.config.DeviceParameters;
import io.ofinet.config.Parameters;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.freelist.Freelist;
import io.ofinet.rdma.progress.ProgressEngine;
import io.ofinet.rdma.rail.KeptReceive;
import io.ofinet.rdma.rail.RailSet;
import io.ofinet.rdma.wire.EagerMessageHeader;

/**
 * An endpoint's eager buffers: one freelist, registered for the data rails (for
 * {@code Use.DATA_BUFFERS}), whose entries are either posted as receives on a data rail, held with an
 * eager message whose receive is not posted yet, or carrying an outgoing eager message.
 *
 * <p>Each data rail keeps {@code rdmaMinPostedEagerBuffers} receives posted: a buffer that is held
 * is replaced from the freelist, and a held buffer given back is posted again while its rail has
 * fewer than {@code rdmaMaxPostedEagerBuffers} posted, else it returns to the freelist. Held
 * buffers are bounded per communicator by the sender's credits (the sequencer's credits); messages
 * beyond what is posted wait in the provider (back-pressure, never loss). The counts are per data
 * rail, as the parameters say. Owned by the endpoint, touched with it held.
 */
public final class EagerBuffers {
    /** Entries for outgoing eager messages at most, beyond the posted receives. */
    private static final int MAX_SENDING = 4096;

    final RailSet rails;
    final KeptReceive.Host host;
    final EagerArrivals arrivals;
    final ProgressEngine engine;
    private final int dataRails;
    private final long payloadBytes;
    private final int minPosted;
    private final int maxPosted;
    private final int[] posted;
    private Freelist<EagerBuffer> buffers;
    private boolean closed;

    /**
     * @param host the endpoint, to which the posted receives go back
     * @param arrivals where what arrives in them goes
     */
    public EagerBuffers(RailSet rails, int dataRails, KeptReceive.Host host, EagerArrivals arrivals, ProgressEngine engine,
            DeviceParameters params) {
        this.rails = rails;
        this.dataRails = dataRails;
        this.host = host;
        this.arrivals = arrivals;
        this.engine = engine;
        // On shm a message above its inject size completes in order behind other peers' (see RailSet).
        this.payloadBytes = Math.min(
                rails.eagerMaxSize(params.setting(Parameters.EAGER_MAX_SIZE), params.minStripeSizeBytes()),
                rails.messagesCompleteAtOnceUpTo() - EagerMessageHeader.BYTES);
        this.minPosted = (int) (long) params.get(Parameters.RDMA_MIN_POSTED_EAGER_BUFFERS);
        this.maxPosted = Math.max(minPosted, (int) (long) params.get(Parameters.RDMA_MAX_POSTED_EAGER_BUFFERS));
        this.posted = new int[dataRails];
    }

    /** Whether sends of up to {@link #payloadBytes()} go eagerly ({@code eagerMaxSize} above 0, and receives posted). */
    public boolean enabled() {
        return payloadBytes > 0 && minPosted > 0;
    }

    /** The largest eager payload. */
    public long payloadBytes() {
        return payloadBytes;
    }

    /** Bytes of a buffer: header and payload. */
    public long bufferBytes() {
        return payloadBytes + EagerMessageHeader.BYTES;
    }

    /** Makes the freelist and posts the receives of every data rail. */
    public void open(Freelist.BlockMemory blockMemory, Freelist.BlockRegistrar registrar) throws RdmaException {
        int rails = dataRails;
        buffers = Freelist.<EagerBuffer>builder("eager buffers", (block, address) -> new EagerBuffer(this, block,
                        address))
                .sizes(minPosted * rails, Math.max(16, minPosted), maxPosted * rails + MAX_SENDING)
                .nativeEntries(bufferBytes(), 64, blockMemory)
                .registered(registrar)
                .hooks(buffer -> {
                    engine.register(buffer.receive);
                    engine.register(buffer.send);
                }, buffer -> { })
                .build();
        for (int rail = 0; rail < rails; rail++) {
            for (int i = 0; i < minPosted; i++) {
                EagerBuffer buffer = buffers.acquire();
                if (buffer == null) {
                    throw new IllegalStateException("eager freelist smaller than its posted receives");
                }
                posted[rail]++;
                buffer.receive.postOn(rail);
            }
        }
    }

    /** A buffer for an outgoing eager message, or null when none is free. */
    public EagerBuffer acquire() {
        try {
            return buffers.acquire();
        } catch (RdmaException e) {
            return null;
        }
    }

    /** An outgoing message's buffer, back to the freelist. */
    public void release(EagerBuffer buffer) {
        if (!closed) {
            buffers.release(buffer);
        }
    }

    /** A received buffer whose message was used up: posted again. */
    public void repost(EagerBuffer buffer) {
        if (!closed) {
            buffer.receive.postOn(buffer.receive.rail());
        }
    }

    /** A received buffer now holds a message: its rail gets another posted in its place. */
    public void held(EagerBuffer buffer) {
        int rail = buffer.receive.rail();
        posted[rail]--;
        if (!closed && posted[rail] < minPosted) {
            EagerBuffer spare = acquire();
            if (spare != null) {
                posted[rail]++;
                spare.receive.postOn(rail);
            }
        }
    }

    /** A held message was used up (or dropped): its buffer is posted again, or freed for later. */
    public void unhold(EagerBuffer buffer) {
        int rail = buffer.receive.rail();
        if (closed) {
            return;
        }
        if (posted[rail] < maxPosted) {
            posted[rail]++;
            buffer.receive.postOn(rail);
        } else {
            buffers.release(buffer);
        }
    }

    /** Receives posted on data rail {@code rail} now. */
    public int posted(int rail) {
        return posted[rail];
    }

    /** The freelist, for the endpoint's close (deregistered with the other pools, freed after the rails). */
    public Freelist<EagerBuffer> freelist() {
        return buffers;
    }

    public void closed() {
        closed = true;
    }
}
