package io.ofinet.rdma.wire;

import io.ofinet.fabric.HostMemory;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;

/**
 * The 16-byte header in front of an eager message (docs/PROTOCOL.md, "Eager messages"): a send of
 * at most {@code eagerMaxSize} bytes that goes out whole into a receive buffer the receiver keeps
 * posted, the request to send (RTS) of a larger send that waits for its announcement, or a larger send's eager
 * head: its first bytes, ahead of the writes of the rest ("Heads"; "head" names that alone, never
 * this header). Little-endian:
 *
 * <pre>
 *  0  u8  kind: 1 eager data (the payload follows), 2 RTS (no payload), 3 eager head (the
 *         send's first bytes follow)
 *  1  u8  reserved (0)
 *  2  u16 ordinal: the send is the ordinal-th with its tag on the communicator (modulo 2^16),
 *         and fills the receive buffer with the same tag and ordinal
 *  4  u32 tag
 *  8  u32 size: the payload's (eager), the announced send's (RTS, eager head)
 * 12  u32 token of the receive communicator
 * </pre>
 *
 * One instance decodes many headers; it holds the last one decoded.
 */
public final class EagerMessageHeader {
    public static final int BYTES = 16;
    public static final int KIND_EAGER = 1;
    public static final int KIND_RTS = 2;
    public static final int KIND_HEAD = 3;
    private int kind;
    private int ordinal;
    private int tag;
    private long size;
    private long payload;
    private int token;

    /** Writes a header at {@code address}. */
    public static void encode(HostMemory memory, long address, int kind, int ordinal, int tag, long size,
            int token) {
        memory.putInt(address, (kind & 0xff) | (ordinal & Limits.ORDINAL_MASK) << 16);
        memory.putInt(address + 4, tag);
        memory.putInt(address + 8, (int) size);
        memory.putInt(address + 12, token);
    }

    /** The token field of the header at {@code address}, undecoded. */
    public static int tokenAt(HostMemory memory, long address) {
        return memory.getInt(address + 12);
    }

    /**
     * Decodes the header of a message of {@code length} bytes at {@code address}.
     *
     * @throws RdmaException (remote) naming the field that breaks a rule
     */
    public EagerMessageHeader decode(HostMemory memory, long address, long length, long maxPayload)
            throws RdmaException {
        if (length < BYTES) {
            throw remote("an eager message of " + length + " bytes is shorter than its " + BYTES + "-byte header");
        }
        int first = memory.getInt(address);
        kind = first & 0xff;
        int reserved = (first >>> 8) & 0xff;
        ordinal = (first >>> 16) & Limits.ORDINAL_MASK;
        tag = memory.getInt(address + 4);
        size = memory.getInt(address + 8) & 0xffffffffL;
        token = memory.getInt(address + 12);
        payload = length - BYTES;
        if (kind != KIND_EAGER && kind != KIND_RTS && kind != KIND_HEAD) {
            throw remote("eager message kind " + kind);
        }
        if (reserved != 0) {
            throw remote("eager message reserved byte " + reserved);
        }
        if (kind == KIND_EAGER && (size != length - BYTES || size > maxPayload)) {
            throw remote("eager message of " + (length - BYTES) + " payload bytes claims " + size
                    + " (at most " + maxPayload + ")");
        }
        if (kind == KIND_RTS && length != BYTES) {
            throw remote("a request to send of " + length + " bytes carries a payload");
        }
        if (kind == KIND_HEAD && (length == BYTES || length - BYTES > maxPayload || length - BYTES >= size)) {
            throw remote("a head of " + (length - BYTES) + " bytes for a send of " + size + " (a head carries 1 to "
                    + maxPayload + " bytes, fewer than its send)");
        }
        return this;
    }

    private static RdmaException remote(String what) {
        return new RdmaException(ErrorCategory.REMOTE, what);
    }

    public int kind() {
        return kind;
    }

    /** The send is the ordinal-th with its tag on its communicator, modulo 2^16. */
    public int ordinal() {
        return ordinal;
    }

    public int tag() {
        return tag;
    }

    /** The bytes after the header: the payload of eager data, the first bytes of the send of a head. */
    public long payload() {
        return payload;
    }

    public long size() {
        return size;
    }

    public int token() {
        return token;
    }
}
