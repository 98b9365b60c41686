package io.ofinet.rdma.wire;

/**
 * What a signal says: a zero-byte message with immediate data of type {@link Immediate#TYPE_SIGNAL},
 * whose buffer-index field holds the code. Its communicator-id field names the communicator it is
 * for, on the side {@link #toSender()} says; its sequence field holds the value the signal carries
 * (see each code). Sent on the first control rail, except a sender's close, which may go on every
 * data rail behind the writes.
 *
 * <p>The codes are wire values: they never change.
 */
public enum Signal {
    /** 0: to the receive side: the sender is alive. */
    KEEPALIVE_TO_RECEIVER(0, false),
    /** 1: to the send side: the receiver is alive. */
    KEEPALIVE_TO_SENDER(1, true),
    /**
     * 2: to the send side: the receiver is closing; the sender stops. The value is {@link
     * #CLOSING_FINAL} when the receiver wrote its last announcement before it.
     */
    RECEIVER_CLOSING(2, true),
    /**
     * 3: to the receive side: the sender has closed and writes no more. The value is how many
     * messages matched by tag it sent (modulo 2^10): once they have all arrived, nothing more comes.
     */
    SENDER_CLOSED(3, false),
    /** 4: to the send side: the message matched by tag with the value's number did not fit its buffer. */
    TRUNCATED_TO_SENDER(4, true),
    /**
     * 5, no longer sent: an eager message whose tag no buffer of its receive had (before messages met
     * buffers by tag and ordinal, handshake version 4). One arriving breaks the protocol.
     */
    RETIRED_TO_SENDER(5, true),
    /** 6: to the send side: credits returned, the value all the receiver has returned so far, modulo 2^10. */
    CREDITS_TO_SENDER(6, true);

    /**
     * The value of a {@link #RECEIVER_CLOSING}: the receiver closed with no receive outstanding and
     * wrote its last announcement before it, so the sender's mailbox may go.
     */
    public static final int CLOSING_FINAL = 1;

    private static final Signal[] BY_CODE = values();

    private final int code;
    private final boolean toSender;

    Signal(int code, boolean toSender) {
        this.code = code;
        this.toSender = toSender;
    }

    /** Its code on the wire, in the buffer-index field of the immediate data. */
    public int code() {
        return code;
    }

    /** Whether it is for the send communicator of its connection; else for the receive communicator. */
    public boolean toSender() {
        return toSender;
    }

    /** Whether {@code code} is a signal's. */
    public static boolean known(int code) {
        return code >= 0 && code < BY_CODE.length;
    }

    /**
     * The signal of {@code code}.
     *
     * @throws IllegalArgumentException for a code no signal has
     */
    public static Signal from(int code) {
        if (!known(code)) {
            throw new IllegalArgumentException("no signal has code " + code);
        }
        return BY_CODE[code];
    }
}
