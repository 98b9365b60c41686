package io.ofinet.fabric;

import java.nio.ByteOrder;

/**
 * What an endpoint name of a provider's address format must look like before it goes to
 * {@code fi_av_insert}, which reads as many bytes as the format says, not as many as it is given:
 * a name a peer sent short would be read past its end. Names come from peers (handshakes) and from
 * connect handles, so a wrong one is refused here, by what is wrong with it. A socket address may
 * be longer than its structure (a provider may give its names room to spare); what follows is not
 * read.
 */
public final class AddressFormat {
    /** {@code sizeof(struct sockaddr_in)}. */
    public static final int SOCKADDR_IN_BYTES = 16;
    /** {@code sizeof(struct sockaddr_in6)}. */
    public static final int SOCKADDR_IN6_BYTES = 28;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private AddressFormat() {
    }

    /**
     * Why {@code address} is not a name of {@code format} ({@code fi_info.addr_format}); null when
     * it is, or when the format is one whose names this does not know (their length is then
     * unchecked, and the binding gives libfabric zeros past the end).
     */
    public static String malformed(int format, byte[] address) {
        if (address.length == 0) {
            return "an empty address";
        }
        return switch (format) {
            case Fi.SOCKADDR_IN -> sockaddr(address, AF_INET, "FI_SOCKADDR_IN");
            case Fi.SOCKADDR_IN6 -> sockaddr(address, AF_INET6, "FI_SOCKADDR_IN6");
            case Fi.SOCKADDR -> sockaddr(address, family(address) == AF_INET6 ? AF_INET6 : AF_INET, "FI_SOCKADDR");
            case Fi.ADDR_STR -> address[0] == 0 ? "an FI_ADDR_STR address that starts with its end (a 0 byte)"
                    : null;
            default -> null;
        };
    }

    private static String sockaddr(byte[] address, int family, String format) {
        int bytes = family == AF_INET ? SOCKADDR_IN_BYTES : SOCKADDR_IN6_BYTES;
        if (address.length < bytes) {
            return "an " + format + " address of " + address.length + " bytes; a sockaddr_in"
                    + (family == AF_INET ? "" : "6") + " has " + bytes;
        }
        if (family(address) != family) {
            return "an " + format + " address of family " + family(address) + ", not AF_INET"
                    + (family == AF_INET ? " (2)" : "6 (10)");
        }
        return null;
    }

    /** {@code sa_family}: the first two bytes, in the host's order. */
    private static int family(byte[] address) {
        if (address.length < 2) {
            return -1;
        }
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? (address[0] & 0xff) | (address[1] & 0xff) << 8
                : (address[0] & 0xff) << 8 | (address[1] & 0xff);
    }
}
