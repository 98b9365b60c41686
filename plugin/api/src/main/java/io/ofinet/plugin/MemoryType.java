package io.ofinet.plugin;

/** Where a buffer lives, as NCCL's {@code NCCL_PTR_*} types say. */
public enum MemoryType {
    /** Host memory: direct buffers, native allocations ({@code NCCL_PTR_HOST}). */
    HOST(1),
    /** Device memory of a CUDA device ({@code NCCL_PTR_CUDA}); declared, refused until a device path exists. */
    CUDA(2),
    /** Memory exported as a dma-buf ({@code NCCL_PTR_DMABUF}); declared, refused until a device path exists. */
    DMABUF(4);

    private final int bit;

    MemoryType(int bit) {
        this.bit = bit;
    }

    /** NCCL's bit for this type in {@link DeviceProperties#ptrSupport()}. */
    public int bit() {
        return bit;
    }
}
