package io.ofinet.rdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Every wire format pinned byte for byte, and every decoder fed truncated and random input. */
class WireFormatsTest {
    private static final HexFormat HEX = HexFormat.of();

    /** A decoder under fuzzing. */
    @FunctionalInterface
    interface Decoder {
        void decode(byte[] bytes, int length) throws RdmaException;
    }

    /** Every prefix fails cleanly; random bytes and random mutations never escape as anything but RdmaException. */
    private static void fuzz(byte[] valid, Decoder decoder, ErrorCategory category) {
        for (int n = 0; n < valid.length; n++) {
            int length = n;
            RdmaException e = assertThrows(RdmaException.class, () -> decoder.decode(valid, length),
                    "prefix of " + n + " bytes");
            assertEquals(category, e.category());
        }
        SplittableRandom random = new SplittableRandom(99);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = i % 2 == 0 ? valid.clone() : new byte[random.nextInt(valid.length + 16)];
            if (i % 2 == 0) {
                for (int k = 0; k < 1 + random.nextInt(4); k++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt();
                }
            } else {
                random.nextBytes(b);
            }
            int length = random.nextInt(b.length + 1);
            try {
                decoder.decode(b, length);
            } catch (RdmaException expected) {
                assertEquals(category, expected.category());
            } catch (RuntimeException bug) {
                throw new AssertionError("decoder threw " + bug + " on " + HEX.formatHex(b) + " length " + length, bug);
            }
        }
    }

    @Test
    void listenHandleIsPinnedAndFitsInNcclsHandle() throws RdmaException {
        ListenHandle h = new ListenHandle(2, 2, 7, new byte[] {1, 2, 3});
        assertEquals("4f46494c" + "01" + "02" + "02" + "03" + "07000000" + "00000000" + "010203", HEX.formatHex(h.encode()));
        assertEquals(h, ListenHandle.decode(h.encode()));
        assertEquals(Limits.HANDLE_BYTES, new ListenHandle(16, 16, -1, new byte[Limits.MAX_ADDRESS_BYTES]).encode().length);
        fuzz(h.encode(), (b, n) -> ListenHandle.decode(java.util.Arrays.copyOf(b, n)), ErrorCategory.INVALID_ARGUMENT);
        RdmaException foreign = assertThrows(RdmaException.class, () -> ListenHandle.decode(new byte[64]));
        assertEquals("malformed listen handle: not an ofinet handle (bad magic)", foreign.getMessage());
    }

    private static HandshakeMessage connect() {
        return HandshakeMessage.connect(2, 2, 7, 300, 0x1000L, Limits.WINDOW, Announcement.maxBytes(2),
                new long[] {0x11, 0x22}, List.of(new byte[] {1}, new byte[] {2, 2}), List.of(new byte[] {3}, new byte[] {4}),
                new ProcessIdentity(0x0102030405060708L, 4321, 99), 0x5eed1234, 8192, 4096);
    }

    @Test
    void handshakeMessagesArePinnedAndRoundTrip() throws RdmaException {
        byte[] encoded = connect().encode();
        assertEquals("4f46494e" + "08" + "01" + "02" + "02" + "07000000" + "2c010000" + "00000000" + "00010000"
                + "0010000000000000" + "48010000" + "3412ed5e" + "0807060504030201" + "e1100000" + "00200000"
                + "6300000000000000" + "0010000000000000" + "1100000000000000" + "2200000000000000"
                + "0101" + "020202" + "0103" + "0104", HEX.formatHex(encoded));
        assertEquals(connect(), HandshakeMessage.decode(encoded, encoded.length));
        HandshakeMessage accept = HandshakeMessage.accept(2, 2, 7, 300, 12, List.of(new byte[] {9}, new byte[] {9}),
                List.of(new byte[] {8}, new byte[] {8}), ProcessIdentity.NONE, -7, 0x5eed1234, 0, -1);
        assertEquals(accept, HandshakeMessage.decode(accept.encode(), accept.encode().length));
        assertEquals(-7, HandshakeMessage.decode(accept.encode(), accept.encode().length).token());
        assertEquals("3412ed5e", HEX.formatHex(accept.encode(), 20, 24), "in reply to, where a CONNECT has its slots");
        assertEquals(0x5eed1234, HandshakeMessage.decode(accept.encode(), accept.encode().length).inReplyTo());
        assertEquals(0x5eed1234, HandshakeMessage.decode(encoded, encoded.length).token());
        assertEquals(8192, HandshakeMessage.decode(encoded, encoded.length).eagerMaxSize());
        assertEquals(4096, HandshakeMessage.decode(encoded, encoded.length).writesNoticedAbove());
        assertEquals(-1, HandshakeMessage.decode(accept.encode(), accept.encode().length).writesNoticedAbove());
        HandshakeMessage reject = HandshakeMessage.reject(1, 1, 7, 300, -3, "rail counts differ");
        HandshakeMessage back = HandshakeMessage.decode(reject.encode(), reject.encode().length);
        assertEquals("rail counts differ", back.reason());
        assertEquals(-3, back.inReplyTo());
        assertEquals(HandshakeMessage.Type.REJECT, back.type());
        assertEquals(3816, HandshakeMessage.MAX_BYTES, "fits a 4 KiB control buffer");
        fuzz(encoded, HandshakeMessage::decode, ErrorCategory.REMOTE);
        fuzz(reject.encode(), HandshakeMessage::decode, ErrorCategory.REMOTE);
    }

    @Test
    void handshakeRefusesAMailboxThatCannotHoldTheWindow() {
        HandshakeMessage small = HandshakeMessage.connect(2, 1, 7, 1, 0x1000L, Limits.WINDOW, 64, new long[] {1},
                List.of(new byte[] {1}, new byte[] {1}), List.of(new byte[] {1}), ProcessIdentity.NONE, 1, 0, -1);
        byte[] b = small.encode();
        RdmaException e = assertThrows(RdmaException.class, () -> HandshakeMessage.decode(b, b.length));
        assertTrue(e.getMessage().contains("cannot hold a window of 256 announcements"), e.getMessage());
    }

    @Test
    void announcementIsPinnedAndValidated() throws RdmaException {
        Announcement m = new Announcement().reset(1, 2, 513).buffer(0, 0x40, 4096, 9, 0x10203, new long[] {5, 6}, 0);
        byte[] out = new byte[Announcement.maxBytes(2)];
        int n = m.encode(out);
        assertEquals("01" + "01" + "02" + "00" + "0102" + "0000" + "4000000000000000" + "0010000000000000"
                + "09000000" + "00" + "00" + "0302" + "0500000000000000" + "0600000000000000",
                HEX.formatHex(out, 0, n));
        Announcement back = new Announcement().decode(out, n, 2, 513);
        assertEquals(0x40, back.address(0));
        assertEquals(4096, back.length(0));
        assertEquals(9, back.tag(0));
        assertEquals(0x203, back.ordinal(0), "the ordinal travels modulo 2^16");
        assertEquals(6, back.key(0, 1));
        assertEquals(1224, Announcement.maxBytes(16));
        RdmaException wrongSeq = assertThrows(RdmaException.class, () -> new Announcement().decode(out, n, 2, 512));
        assertEquals("malformed announcement: sequence 513 outside 512..512", wrongSeq.getMessage());
        assertThrows(RdmaException.class, () -> new Announcement().decode(out, n, 4, 513), "rail count");
        byte[] badIndex = out.clone();
        badIndex[28] = 1;
        assertThrows(RdmaException.class, () -> new Announcement().decode(badIndex, n, 2, 513));
        assertFalse(back.tagged(0));
        byte[] tagged = out.clone();
        tagged[29] = Announcement.TAGGED;
        assertTrue(new Announcement().decode(tagged, n, 2, 513).tagged(0), "the flags byte after the index");
        byte[] badFlags = out.clone();
        badFlags[29] = 2;
        RdmaException flags = assertThrows(RdmaException.class, () -> new Announcement().decode(badFlags, n, 2, 513));
        assertEquals("malformed announcement: flags 2 outside 0..1", flags.getMessage());
        fuzz(java.util.Arrays.copyOf(out, n), (b, len) -> new Announcement().decode(b, len, 2, 513),
                ErrorCategory.REMOTE);
    }

    @Test
    void aTaggedMessagesTagCarriesTokenCommunicatorSequenceAndBuffer() {
        assertEquals(0xCAFEBABE_00000000L | 8191L << 13 | 1023L << 3 | 7, TaggedData.tag(0xCAFEBABE, 8191, 1023, 7));
        assertEquals(0x00000001_00000000L | 5L << 13 | 2L << 3 | 1, TaggedData.tag(1, 5, 2, 1));
        assertEquals(1, TaggedData.rail(1022, 3, 2));
        assertEquals(0, TaggedData.rail(7, 0, 1));
    }

    @Test
    void eagerHeaderIsPinnedAndValidated() throws RdmaException {
        io.ofinet.fabric.HostMemory memory = io.ofinet.fabric.ofi.NativeMemory.host();
        long at = memory.allocate(64);
        try {
            EagerMessageHeader.encode(memory, at, EagerMessageHeader.KIND_EAGER, 0x10201, 9, 32, 0x12345678);
            byte[] out = new byte[EagerMessageHeader.BYTES];
            memory.read(at, out, 0, out.length);
            assertEquals("01" + "00" + "0102" + "09000000" + "20000000" + "78563412", HEX.formatHex(out));
            EagerMessageHeader h = new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 32, 8192);
            assertEquals(EagerMessageHeader.KIND_EAGER, h.kind());
            assertEquals(0x201, h.ordinal(), "the ordinal travels modulo 2^16");
            assertEquals(9, h.tag());
            assertEquals(32, h.size());
            assertEquals(0x12345678, h.token());
            assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 31,
                    8192), "a payload shorter than its size");
            assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 32, 16),
                    "a payload larger than eagerMaxSize");
            memory.putInt(at, EagerMessageHeader.KIND_RTS | 1 << 8);
            RdmaException reserved = assertThrows(RdmaException.class,
                    () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES, 8192));
            assertEquals(ErrorCategory.REMOTE, reserved.category());
            assertEquals("eager message reserved byte 1", reserved.getMessage());
            EagerMessageHeader.encode(memory, at, EagerMessageHeader.KIND_RTS, 7, 9, 1 << 20, 1);
            assertEquals(1 << 20, new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES, 8192).size(),
                    "a request to send announces a size above eagerMaxSize");
            assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 1, 8192),
                    "a request to send with a payload");
            EagerMessageHeader.encode(memory, at, EagerMessageHeader.KIND_HEAD, 1, 9, 20000, 1);
            EagerMessageHeader head = new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 8192, 8192);
            assertEquals(20000, head.size(), "a head announces its send's size");
            assertEquals(8192, head.payload(), "and carries its first bytes");
            assertEquals("a head of 8193 bytes for a send of 20000 (a head carries 1 to 8192 bytes, fewer than its"
                    + " send)", assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at,
                    EagerMessageHeader.BYTES + 8193, 8192)).getMessage());
            assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES, 8192),
                    "a head without bytes");
            EagerMessageHeader.encode(memory, at, EagerMessageHeader.KIND_HEAD, 1, 9, 4096, 1);
            assertThrows(RdmaException.class, () -> new EagerMessageHeader().decode(memory, at, EagerMessageHeader.BYTES + 4096,
                    8192), "a head as large as its send");
            fuzz(java.util.Arrays.copyOf(out, out.length), (b, len) -> {
                memory.write(at, b, 0, Math.min(len, 64));
                new EagerMessageHeader().decode(memory, at, len, 8192);
            }, ErrorCategory.REMOTE);
        } finally {
            memory.free(at);
        }
    }

    @Test
    void signalCodesArePinned() {
        Signal[] byCode = {Signal.KEEPALIVE_TO_RECEIVER, Signal.KEEPALIVE_TO_SENDER, Signal.RECEIVER_CLOSING,
            Signal.SENDER_CLOSED, Signal.TRUNCATED_TO_SENDER, Signal.RETIRED_TO_SENDER, Signal.CREDITS_TO_SENDER};
        assertEquals(byCode.length, Signal.values().length);
        for (int code = 0; code < byCode.length; code++) {
            assertEquals(code, byCode[code].code());
            assertEquals(byCode[code], Signal.from(code));
            assertEquals(byCode[code], Immediate.signal(Immediate.signal(byCode[code], 5, 9)));
        }
        assertEquals(List.of(Signal.KEEPALIVE_TO_RECEIVER, Signal.SENDER_CLOSED),
                java.util.Arrays.stream(Signal.values()).filter(s -> !s.toSender()).toList());
        assertEquals(1, Signal.CLOSING_FINAL);
        assertEquals(0xC1801403, Immediate.signal(Signal.SENDER_CLOSED, 5, 3));
        assertThrows(IllegalArgumentException.class, () -> Signal.from(7));
        assertThrows(IllegalArgumentException.class, () -> Signal.from(-1));
    }

    @Test
    void immediateDataIsPinnedAndChecked() throws RdmaException {
        int data = Immediate.encode(Immediate.TYPE_ANNOUNCEMENT, 2, 3, 4095, 513);
        assertEquals(0b01_0001_011_0111111111111_1000000001, data);
        assertEquals(Immediate.TYPE_ANNOUNCEMENT, Immediate.type(data));
        assertEquals(2, Immediate.segments(data));
        assertEquals(3, Immediate.recvIndex(data));
        assertEquals(4095, Immediate.commId(data));
        assertEquals(513, Immediate.seq(data));
        int max = Immediate.encode(Immediate.TYPE_ERROR, 16, 7, Limits.MAX_COMMS - 1, 1023);
        assertEquals(0xBFFFFFFF, max);
        assertEquals(data, Immediate.check(data & 0xffffffffL, 2));
        assertEquals(Immediate.TYPE_SIGNAL, Immediate.type(Immediate.check(0xC0800000L, 16)), "keepalive to a sender");
        assertEquals(Signal.KEEPALIVE_TO_SENDER, Immediate.signal(0xC0800000));
        assertThrows(RdmaException.class, () -> Immediate.check(0xC3800000L, 16), "signal of code 7");
        assertThrows(RdmaException.class, () -> Immediate.check(Immediate.encode(0, 4, 0, 0, 0), 2), "4 segments, 2 rails");
        assertEquals(3, Immediate.segments(Immediate.check(Immediate.encode(0, 3, 0, 0, 0), 2)),
                "2 stripes and a head");
        assertThrows(RdmaException.class, () -> Immediate.check(1L << 32, 2));
        // An error's segment field is its reason, whatever the rail count.
        assertEquals(Immediate.ERROR_SEND_FAILED, Immediate.segments(Immediate.check(
                Immediate.encode(Immediate.TYPE_ERROR, Immediate.ERROR_SEND_FAILED, 0, 1, 1) & 0xffffffffL, 1)));
        assertThrows(RdmaException.class, () -> Immediate.check(
                Immediate.encode(Immediate.TYPE_ERROR, Immediate.ERROR_RETIRED, 0, 1, 1) & 0xffffffffL, 16),
                "the retired reason 2");
        assertThrows(RdmaException.class, () -> Immediate.check(
                Immediate.encode(Immediate.TYPE_ERROR, 5, 0, 1, 1) & 0xffffffffL, 16), "unknown reason");
        assertThrows(IllegalArgumentException.class, () -> Immediate.encode(0, 17, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Immediate.encode(0, 1, 8, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> Immediate.encode(0, 1, 0, Limits.MAX_COMMS, 0));
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 100_000; i++) {
            int t = random.nextInt(3);
            int s = 1 + random.nextInt(16);
            int r = random.nextInt(8);
            int c = random.nextInt(Limits.MAX_COMMS);
            int q = random.nextInt(1024);
            int d = Immediate.encode(t, s, r, c, q);
            assertEquals(List.of(t, s, r, c, q), List.of(Immediate.type(d), Immediate.segments(d),
                    Immediate.recvIndex(d), Immediate.commId(d), Immediate.seq(d)));
        }
    }

    @Test
    void messagesRoundTripExactly() throws RdmaException {
        byte[] e = connect().encode();
        assertArrayEquals(e, HandshakeMessage.decode(e, e.length).encode());
    }

    /** Encoding into and decoding from native memory (a registered slot) is the same format, with the same checks. */
    @Test
    void announcementsEncodeIntoAndDecodeFromNativeMemoryAsTheyDoInArrays() throws Exception {
        io.ofinet.fabric.HostMemory memory = io.ofinet.fabric.mem.MemProvider.create().memory();
        Announcement m = new Announcement().reset(3, 2, 1023)
                .buffer(0, 0x40, 4096, 9, 0, new long[] {5, 6}, 0)
                .buffer(1, 0x1234_5678_9abcL, 1L << 32, -7, 0xffff, new long[] {-1L, 0x0102_0304_0506_0708L},
                        Announcement.TAGGED)
                .buffer(2, 0, 0, 0, 3, new long[] {0, 0}, 0);
        byte[] inArray = new byte[Announcement.maxBytes(2)];
        int n = m.encode(inArray);
        long slot = memory.allocate(Announcement.maxBytes(2));
        try {
            assertEquals(n, m.encode(memory, slot));
            byte[] inNative = new byte[n];
            memory.read(slot, inNative, 0, n);
            assertArrayEquals(java.util.Arrays.copyOf(inArray, n), inNative);
            Announcement back = new Announcement().decode(memory, slot, n, 2, 1023);
            assertEquals(3, back.buffers());
            assertEquals(0x1234_5678_9abcL, back.address(1));
            assertEquals(1L << 32, back.length(1));
            assertEquals(-7, back.tag(1));
            assertEquals(0x0102_0304_0506_0708L, back.key(1, 1));
            RdmaException truncated = assertThrows(RdmaException.class,
                    () -> new Announcement().decode(memory, slot, n - 1, 2, 1023));
            assertEquals(ErrorCategory.REMOTE, truncated.category());
            assertTrue(truncated.getMessage().contains("truncated at key"), truncated.getMessage());
        } finally {
            memory.free(slot);
        }
    }
}
