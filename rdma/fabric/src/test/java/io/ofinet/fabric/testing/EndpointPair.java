package io.ofinet.fabric.testing;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionBatch;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Domain;
import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;
import io.ofinet.fabric.MemoryRegion;
import io.ofinet.fabric.ofi.NativeMemory;

/**
 * Two endpoints of one domain, {@code a} sending to {@code b}, each with its completion queue,
 * address vector and a registered 64-byte buffer, for tests and benchmarks of the fabric layer
 * itself. Closing it closes the registrations, the endpoints, the address vectors and the queues,
 * then frees the buffers; closing twice is harmless.
 */
public final class EndpointPair implements AutoCloseable {
    public final CompletionQueue cqA;
    public final CompletionQueue cqB;
    public final AddressVector avA;
    public final AddressVector avB;
    public final Endpoint a;
    public final Endpoint b;
    public final long bufA;
    public final long bufB;
    public final MemoryRegion mrA;
    public final MemoryRegion mrB;
    /** b's address in a's address vector. */
    public final long aToB;
    /** The key of b's buffer, for a's writes into it. */
    public final long keyB;
    /** For {@link #progress} and {@link #sendAndReceive}; holds the last completions read. */
    public final CompletionBatch batch = new CompletionBatch(4);
    /** Length and immediate data of the receive {@link #sendAndReceive} completed last. */
    public long receivedLength;
    public long receivedData;
    private boolean closed;

    /**
     * Opens the pair in {@code domain}, its buffers registered for messages, reads and writes with
     * keys {@code firstKey} and the next (keys are unique within a domain).
     */
    public EndpointPair(Domain domain, long firstKey) throws FabricException {
        long access = Fi.SEND | Fi.RECV | Fi.READ | Fi.WRITE | Fi.REMOTE_READ | Fi.REMOTE_WRITE;
        cqA = domain.openCompletionQueue(1024);
        cqB = domain.openCompletionQueue(1024);
        avA = domain.openAddressVector(4);
        avB = domain.openAddressVector(4);
        a = domain.openEndpoint(cqA, avA);
        b = domain.openEndpoint(cqB, avB);
        a.enable();
        b.enable();
        aToB = avA.insert(b.name());
        avB.insert(a.name());
        bufA = NativeMemory.allocate(64);
        bufB = NativeMemory.allocate(64);
        mrA = domain.register(bufA, 64, access, firstKey, Fi.HMEM_SYSTEM);
        mrB = domain.register(bufB, 64, access, firstKey + 1, Fi.HMEM_SYSTEM);
        keyB = mrB.key();
    }

    /** Reads both queues once: with manual progress (shm, rxm) data moves only while they are read. */
    public void progress() throws FabricException {
        cqA.read(batch, 4);
        cqB.read(batch, 4);
    }

    /**
     * b posts a receive into its buffer and a sends {@code length} bytes of its own with {@code
     * data}; returns once both have completed, with the receive's length and data in {@link
     * #receivedLength} and {@link #receivedData}. A refused post is retried after progress on both
     * sides: shm and rxm set up the path to a new peer only while the peer's queue is read too.
     *
     * @throws IllegalStateException on an error completion
     */
    public void sendAndReceive(long length, long data) throws FabricException {
        while (b.recv(bufB, 64, mrB.descriptor(), Fi.ADDR_UNSPEC, 2) == Endpoint.AGAIN) {
            progress();
        }
        while (a.senddata(bufA, length, mrA.descriptor(), data, aToB, 1) == Endpoint.AGAIN) {
            progress();
        }
        boolean sent = false;
        boolean received = false;
        while (!sent || !received) {
            int n = cqA.read(batch, 4);
            if (n < 0) {
                throw new IllegalStateException("an error completion of a send");
            }
            sent |= n > 0;
            int m = cqB.read(batch, 4);
            if (m < 0) {
                throw new IllegalStateException("an error completion of a receive");
            }
            if (m > 0) {
                received = true;
                receivedLength = batch.len(0);
                receivedData = batch.data(0);
            }
        }
    }

    @Override
    public void close() throws FabricException {
        if (closed) {
            return;
        }
        closed = true;
        mrA.close();
        mrB.close();
        b.close();
        a.close();
        avB.close();
        avA.close();
        cqB.close();
        cqA.close();
        NativeMemory.free(bufA);
        NativeMemory.free(bufB);
    }
}
