package io.ofinet.fabric.ofi;

import io.ofinet.fabric.HostMemory;

/**
 * The seam of every data-path native call: posts on an endpoint, completion-queue reads, and
 * reads and writes of native memory. Primitive arguments only, addresses as {@code long}, so
 * that an implementation can call without allocating. Implemented with JNA ({@link JnaDataPath},
 * Java 17) and with FFM ({@code FfmDataPath}, JDK 22+, from the multi-release part of the jar).
 *
 * <p>Return values are libfabric's: 0 or a count on success, a negative error number otherwise.
 */
interface DataPath extends HostMemory {

    /** A short name: {@code "jna"} or {@code "ffm"}. */
    String name();

    /**
     * The posting calls of one endpoint, with its function pointers read once; {@code waitsOnPeers}
     * where its provider's calls may wait on another process ({@link DataPaths#waitsOnPeers}).
     */
    EndpointCalls endpoint(long ep, boolean waitsOnPeers);

    /** The reading calls of one completion queue, with its function pointers read once. */
    CqCalls cq(long cq, boolean waitsOnPeers);

    /** The reading calls of a completion queue whose provider never waits on a peer. */
    default CqCalls cq(long cq) {
        return cq(cq, false);
    }

    /** Host memory is allocated from the C heap, whichever path reads and writes it. */
    @Override
    default long allocate(long bytes) {
        return NativeMemory.allocate(bytes);
    }

    /**
     * The address of a direct buffer's first byte (not its position's): a JNI call of JNA's that
     * allocates nothing, on either path. (FFM's {@code MemorySegment.ofBuffer} makes a segment
     * that escape analysis removes only where the call is compiled inline.)
     */
    default long addressOf(java.nio.ByteBuffer direct) {
        return JnaInvoker.directBufferAddress(direct);
    }

    @Override
    default void free(long address) {
        NativeMemory.free(address);
    }

    /** Posting calls of one endpoint; each returns 0 or a negative libfabric error. */
    interface EndpointCalls {
        long send(long buf, long len, long desc, long dest, long context);

        long recv(long buf, long len, long desc, long src, long context);

        long senddata(long buf, long len, long desc, long data, long dest, long context);

        long write(long buf, long len, long desc, long dest, long addr, long key, long context);

        long writedata(long buf, long len, long desc, long data, long dest, long addr, long key,
                long context);

        long read(long buf, long len, long desc, long src, long addr, long key, long context);

        long sendmsg(long msg, long flags);

        long recvmsg(long msg, long flags);

        long writemsg(long msg, long flags);

        long readmsg(long msg, long flags);

        /** {@code fi_trecv}: a receive of a message whose tag matches {@code tag} outside {@code ignore}. */
        long trecv(long buf, long len, long desc, long src, long tag, long ignore, long context);

        /** {@code fi_tsenddata}: a tagged message carrying immediate data. */
        long tsenddata(long buf, long len, long desc, long data, long dest, long tag, long context);

        /** {@code fi_cancel} of the endpoint's operation with {@code context}. */
        long cancel(long context);
    }

    /** Reading calls of one completion queue. */
    interface CqCalls {
        /** {@code fi_cq_read}: a count, or a negative error ({@code -FI_EAGAIN} when empty). */
        long read(long buf, long count);

        /** {@code fi_cq_readfrom}: as {@link #read}, and each entry's source into {@code src}. */
        long readfrom(long buf, long count, long src);

        /** {@code fi_cq_readerr}: 1 when an entry was read, or a negative error. */
        long readerr(long buf, long flags);
    }
}
