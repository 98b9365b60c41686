package io.ofinet.rdma.wire;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A connection message, sent on the first control rail: CONNECT from the connecting side to the
 * listener, ACCEPT or REJECT back. CONNECT carries what the acceptor needs to write announcements (the
 * connector's mailbox address, slots and control-rail keys); CONNECT and ACCEPT carry the addresses of every
 * data and control rail endpoint of their side.
 *
 * <pre>
 *  0 u32 magic 0x4E49464F ("OFIN")  4 u8 version (7)  5 u8 type (1 CONNECT, 2 ACCEPT, 3 REJECT)
 *  6 u8 data rails (1..16)          7 u8 control rails (1..16)
 *  8 u32 listen id                 12 u32 connector's comm id       16 u32 acceptor's comm id
 * 20 u32 mailbox slots (CONNECT); in reply to: the token of the CONNECT answered (ACCEPT, REJECT)
 * 24 u64 mailbox address           32 u32 mailbox slot bytes
 * 36 u32 token: the upper half of the CQ data of every signal, error and announcement to this side
 * 40 u64 host identity (0: unknown) 48 u32 pid                      52 u32 eager max size (0: off)
 * 56 u64 process start, clock ticks since boot
 * 64 i64 writes noticed above: the sender's writes longer than this many bytes go with a notice
 *        message, shorter ones with immediate data (-1: every write; 2^63-1: none)
 * 72 u64 mailbox key per control rail
 *    then per data rail, then per control rail: u8 length (1..112), address bytes
 *    REJECT instead: u16 reason length (..512), UTF-8 reason
 * </pre>
 *
 * <p>{@code writesNoticedAbove} lets the listener tell a written data segment its connector could
 * not have sent (docs/PROTOCOL.md, "What a peer can forge"): both sides must write alike, so it
 * refuses a connector that does not. {@code inReplyTo} ties an ACCEPT or a REJECT to the CONNECT it
 * answers: the connector takes one only with its own communicator's token, which only the listener
 * its CONNECT reached has seen, so that a late answer to an earlier connect under the same
 * communicator id, or a forged one, is dropped.
 */
public record HandshakeMessage(Type type, int dataRails, int controlRails, int listenId, int connectorCommId,
        int acceptorCommId, long mailboxAddress, int mailboxSlots, int mailboxSlotBytes, long[] mailboxKeys,
        List<byte[]> dataAddresses, List<byte[]> controlAddresses, ProcessIdentity process, int token, int inReplyTo,
        int eagerMaxSize, long writesNoticedAbove, String reason) {

    /** The message kinds. */
    public enum Type {
        CONNECT(1), ACCEPT(2), REJECT(3);

        final int code;

        Type(int code) {
            this.code = code;
        }
    }

    static final int MAGIC = 0x4E49464F;
    static final int VERSION = 8;
    static final int HEADER = 72;
    static final int MAX_REASON = 512;

    /** The largest message: a control receive buffer of this size holds any. */
    public static final int MAX_BYTES = HEADER + 8 * Limits.MAX_CONTROL_RAILS
            + (Limits.MAX_DATA_RAILS + Limits.MAX_CONTROL_RAILS) * (1 + Limits.MAX_ADDRESS_BYTES);

    public HandshakeMessage {
        Objects.requireNonNull(type);
        mailboxKeys = mailboxKeys == null ? new long[0] : mailboxKeys.clone();
        dataAddresses = dataAddresses == null ? List.of() : List.copyOf(dataAddresses);
        controlAddresses = controlAddresses == null ? List.of() : List.copyOf(controlAddresses);
        process = process == null ? ProcessIdentity.NONE : process;
        reason = reason == null ? "" : reason;
    }

    public static HandshakeMessage connect(int dataRails, int controlRails, int listenId, int connectorCommId,
            long mailboxAddress, int slots, int slotBytes, long[] mailboxKeys, List<byte[]> dataAddresses,
            List<byte[]> controlAddresses, ProcessIdentity process, int token, int eagerMaxSize,
            long writesNoticedAbove) {
        return new HandshakeMessage(Type.CONNECT, dataRails, controlRails, listenId, connectorCommId, 0,
                mailboxAddress, slots, slotBytes, mailboxKeys, dataAddresses, controlAddresses, process, token, 0,
                eagerMaxSize, writesNoticedAbove, "");
    }

    /** An ACCEPT of the CONNECT whose token was {@code inReplyTo}. */
    public static HandshakeMessage accept(int dataRails, int controlRails, int listenId, int connectorCommId,
            int acceptorCommId, List<byte[]> dataAddresses, List<byte[]> controlAddresses, ProcessIdentity process,
            int token, int inReplyTo, int eagerMaxSize, long writesNoticedAbove) {
        return new HandshakeMessage(Type.ACCEPT, dataRails, controlRails, listenId, connectorCommId,
                acceptorCommId, 0, 0, 0, new long[controlRails], dataAddresses, controlAddresses, process, token,
                inReplyTo, eagerMaxSize, writesNoticedAbove, "");
    }

    /** A REJECT of the CONNECT whose token was {@code inReplyTo}. */
    public static HandshakeMessage reject(int dataRails, int controlRails, int listenId, int connectorCommId,
            int inReplyTo, String reason) {
        return new HandshakeMessage(Type.REJECT, dataRails, controlRails, listenId, connectorCommId, 0, 0, 0, 0,
                null, null, null, null, 0, inReplyTo, 0, 0, reason);
    }

    /** Encodes into {@code out}, returning the length. */
    public int encode(byte[] out) {
        WireWriter w = new WireWriter(out);
        w.i32(MAGIC).u8(VERSION).u8(type.code).u8(dataRails).u8(controlRails).i32(listenId).i32(connectorCommId)
                .i32(acceptorCommId).i32(type == Type.CONNECT ? mailboxSlots : inReplyTo).i64(mailboxAddress).i32(mailboxSlotBytes).i32(token).i64(process.host()).i32(process.pid()).i32(eagerMaxSize)
                .i64(process.startTicks()).i64(writesNoticedAbove);
        if (type == Type.REJECT) {
            byte[] text = reason.getBytes(StandardCharsets.UTF_8);
            int n = Math.min(text.length, MAX_REASON);
            w.u16(n).bytes(java.util.Arrays.copyOf(text, n));
            return w.position();
        }
        for (int c = 0; c < controlRails; c++) {
            w.i64(c < mailboxKeys.length ? mailboxKeys[c] : 0);
        }
        for (byte[] a : dataAddresses) {
            w.u8(a.length).bytes(a);
        }
        for (byte[] a : controlAddresses) {
            w.u8(a.length).bytes(a);
        }
        return w.position();
    }

    public byte[] encode() {
        byte[] out = new byte[MAX_BYTES];
        return java.util.Arrays.copyOf(out, encode(out));
    }

    /** Decodes what a peer sent: anything malformed is a remote error. */
    public static HandshakeMessage decode(byte[] bytes, int length) throws RdmaException {
        WireReader r = new WireReader(bytes, length, "handshake message", ErrorCategory.REMOTE);
        if (r.i32("magic") != MAGIC) {
            throw r.fail("bad magic");
        }
        r.range(r.u8("version"), VERSION, VERSION, "version");
        int code = r.range(r.u8("type"), 1, 3, "type");
        Type type = Type.values()[code - 1];
        int data = r.range(r.u8("data rails"), 1, Limits.MAX_DATA_RAILS, "data rails");
        int control = r.range(r.u8("control rails"), 1, Limits.MAX_CONTROL_RAILS, "control rails");
        int listenId = r.i32("listen id");
        int connector = r.range(r.i32("connector comm id"), 0, Limits.MAX_COMMS - 1, "connector comm id");
        int acceptor = r.range(r.i32("acceptor comm id"), 0, Limits.MAX_COMMS - 1, "acceptor comm id");
        int slotsOrReply = r.i32(type == Type.CONNECT ? "mailbox slots" : "in reply to");
        int slots = type == Type.CONNECT ? r.range(slotsOrReply, 0, Limits.WINDOW, "mailbox slots") : 0;
        int inReplyTo = type == Type.CONNECT ? 0 : slotsOrReply;
        long mailbox = r.i64("mailbox address");
        int slotBytes = r.range(r.i32("mailbox slot bytes"), 0, Announcement.maxBytes(Limits.MAX_DATA_RAILS),
                "mailbox slot bytes");
        int token = r.i32("token");
        long host = r.i64("host identity");
        int pid = r.range(r.i32("pid"), 0, ProcessIdentity.MAX_PID, "pid");
        int eager = r.range(r.i32("eager max size"), 0, Integer.MAX_VALUE, "eager max size");
        long start = r.i64("process start");
        long noticedAbove = r.i64("writes noticed above");
        if (noticedAbove < -1) {
            throw r.fail("writes noticed above " + noticedAbove + " bytes");
        }
        if (type == Type.REJECT) {
            int n = r.range(r.u16("reason length"), 0, MAX_REASON, "reason length");
            String reason = new String(r.bytes(n, "reason"), StandardCharsets.UTF_8);
            return reject(data, control, listenId, connector, inReplyTo, reason);
        }
        if (type == Type.CONNECT && (slots != Limits.WINDOW || slotBytes < Announcement.maxBytes(data))) {
            throw r.fail("mailbox of " + slots + " slots of " + slotBytes + " bytes cannot hold a window of "
                    + Limits.WINDOW + " announcements for " + data + " data rails");
        }
        long[] keys = new long[control];
        for (int c = 0; c < control; c++) {
            keys[c] = r.i64("mailbox key");
        }
        List<byte[]> dataAddresses = addresses(r, data, "data rail address");
        List<byte[]> controlAddresses = addresses(r, control, "control rail address");
        return new HandshakeMessage(type, data, control, listenId, connector, acceptor, mailbox, slots, slotBytes,
                keys, dataAddresses, controlAddresses, new ProcessIdentity(host, pid, start), token, inReplyTo, eager,
                noticedAbove, "");
    }

    private static List<byte[]> addresses(WireReader r, int count, String field) throws RdmaException {
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int n = r.range(r.u8(field + " length"), 1, Limits.MAX_ADDRESS_BYTES, field + " length");
            out.add(r.bytes(n, field));
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HandshakeMessage m && java.util.Arrays.equals(m.encode(), encode());
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return "HandshakeMessage[" + type + ", " + dataRails + "+" + controlRails + " rails, listen " + listenId
                + ", connector " + connectorCommId + ", acceptor " + acceptorCommId + "]";
    }
}
