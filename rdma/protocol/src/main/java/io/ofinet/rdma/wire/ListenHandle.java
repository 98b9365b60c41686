package io.ofinet.rdma.wire;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.Arrays;
import java.util.Objects;

/**
 * What {@code listen} returns and {@code connect} takes: the listener's rail counts, its listen
 * id, and the address of its first control rail, where connect messages go. At most {@link
 * Limits#HANDLE_BYTES} bytes.
 *
 * <pre>
 *  0 u32 magic 0x4C49464F ("OFIL")   4 u8 version (1)   5 u8 data rails   6 u8 control rails
 *  7 u8 address length (1..112)      8 u32 listen id    12 u32 reserved (0)
 * 16 address bytes
 * </pre>
 */
public record ListenHandle(int dataRails, int controlRails, int listenId, byte[] address) {
    static final int MAGIC = 0x4C49464F;
    static final int VERSION = 1;
    static final int HEADER = 16;

    public ListenHandle {
        Objects.requireNonNull(address, "address");
        if (address.length < 1 || address.length > Limits.MAX_ADDRESS_BYTES) {
            throw new IllegalArgumentException("address of " + address.length + " bytes");
        }
        address = address.clone();
    }

    @Override
    public byte[] address() {
        return address.clone();
    }

    public byte[] encode() {
        byte[] out = new byte[HEADER + address.length];
        new WireWriter(out).i32(MAGIC).u8(VERSION).u8(dataRails).u8(controlRails).u8(address.length)
                .i32(listenId).i32(0).bytes(address);
        return out;
    }

    /** Decodes a handle passed by the caller: a bad one is an invalid argument. */
    public static ListenHandle decode(byte[] bytes) throws RdmaException {
        WireReader r = new WireReader(bytes, bytes.length, "listen handle", ErrorCategory.INVALID_ARGUMENT);
        if (bytes.length > Limits.HANDLE_BYTES) {
            throw r.fail(bytes.length + " bytes, more than " + Limits.HANDLE_BYTES);
        }
        if (r.i32("magic") != MAGIC) {
            throw r.fail("not an ofinet handle (bad magic)");
        }
        r.range(r.u8("version"), VERSION, VERSION, "version");
        int data = r.range(r.u8("data rails"), 1, Limits.MAX_DATA_RAILS, "data rails");
        int control = r.range(r.u8("control rails"), 1, Limits.MAX_CONTROL_RAILS, "control rails");
        int length = r.range(r.u8("address length"), 1, Limits.MAX_ADDRESS_BYTES, "address length");
        int id = r.i32("listen id");
        r.skip(4, "reserved");
        byte[] address = r.bytes(length, "address");
        return new ListenHandle(data, control, id, address);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ListenHandle h && h.dataRails == dataRails && h.controlRails == controlRails
                && h.listenId == listenId && Arrays.equals(h.address, address);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dataRails, controlRails, listenId, Arrays.hashCode(address));
    }

    @Override
    public String toString() {
        return "ListenHandle[" + dataRails + " data rails, " + controlRails + " control rails, listen id "
                + listenId + "]";
    }
}
