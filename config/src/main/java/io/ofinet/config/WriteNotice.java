package io.ofinet.config;

/**
 * How the target of an RDMA write learns that the write has landed: its write notice. A layout
 * and the environment spell each mode as {@link #jsonName()} says: {@code auto}, {@code
 * immediate}, {@code message}, {@code tagged}.
 *
 * <p>{@link #IMMEDIATE}: the write carries immediate data ({@code fi_writedata}) and completes at
 * the target with it. {@link #MESSAGE}: a plain write ({@code fi_write}), then, once it has
 * completed at the writer, a zero-byte message carrying the same immediate data on the same
 * endpoint to the same peer; announcements are then sent as messages instead of written.
 * {@link #AUTO}: message on {@code tcp}; on {@code shm} immediate for writes of up to 4 KiB and a
 * message for longer ones; immediate elsewhere. The message form exists for libfabric 1.17's
 * {@code tcp} (through {@code ofi_rxm}), which crashes inside {@code ofi_rxm} when a connection
 * that is receiving a write with immediate data is closed or reset, and for shm's long writes, which
 * with immediate data complete in order across all peers (one stopped peer holds up the others).
 * It needs 8 bytes of CQ data (the segment length rides in it).
 *
 * <p>{@link #TAGGED_SEND_INSTEAD} (spelled {@code tagged}): as {@link #MESSAGE}, except that a receive buffer larger than {@code
 * eagerMaxSize} (and within {@code ofi_rxm}'s eager limit) is not written at all: its receiver posts
 * a tagged receive for it before it announces it, and the sender sends the data as one tagged
 * message into it, on one data rail, with no notice. On {@code tcp} that is one message per
 * transfer less. {@link #AUTO} takes it on {@code tcp} with one data rail.
 */
public enum WriteNotice {
    AUTO("auto"),
    IMMEDIATE("immediate"),
    MESSAGE("message"),
    /** No write and no notice for a large buffer: the data goes as one tagged message instead. */
    TAGGED_SEND_INSTEAD("tagged");

    private final String jsonName;

    WriteNotice(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name used in layouts and in the environment. */
    public String jsonName() {
        return jsonName;
    }
}
