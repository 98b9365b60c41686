package io.ofinet.fabric.ofi;

import io.ofinet.fabric.AddressVector;
import io.ofinet.fabric.CompletionQueue;
import io.ofinet.fabric.Endpoint;

/**
 * What the data path's benchmarks time, reached from outside the binding: the native handles of
 * the binding's objects, for C loops over the same objects, and one completion-queue read through
 * each data path. A test fixture (rdma/fabric's test-jar), not the binding's API.
 */
public final class DataPathProbe {
    private DataPathProbe() {
    }

    /** One {@code fi_cq_read} through a data path: a count, or a negative error ({@code -FI_EAGAIN} when empty). */
    @FunctionalInterface
    public interface CqRead {
        long read(long buf, long count);
    }

    /** The libfabric handle ({@code struct fid_ep *}) of an endpoint of the binding. */
    public static long fid(Endpoint endpoint) {
        return ((OfiEndpoint) endpoint).fid();
    }

    /** The libfabric handle ({@code struct fid_cq *}) of a completion queue of the binding. */
    public static long fid(CompletionQueue queue) {
        return ((OfiCompletionQueue) queue).fid();
    }

    /** The libfabric handle ({@code struct fid_av *}) of an address vector of the binding. */
    public static long fid(AddressVector vector) {
        return ((OfiAddressVector) vector).fid();
    }

    /**
     * {@code fi_cq_read} on {@code queue} through the data path named {@code path}: {@code "jna"}, or
     * {@code "ffm"} (JDK 22+).
     */
    public static CqRead cqRead(String path, CompletionQueue queue) throws ReflectiveOperationException {
        DataPath dataPath = path.equals("jna") ? new JnaDataPath()
                : (DataPath) Class.forName("io.ofinet.fabric.ofi.FfmDataPath").getDeclaredConstructor().newInstance();
        return dataPath.cq(fid(queue))::read;
    }
}
