package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/**
 * Which names each address format takes: at least its structure's length, of its family; a string
 * that does not start with its end.
 */
class AddressFormatTest {
    private static byte[] sockaddr(int family, int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder()).putShort((short) family).array();
    }

    @Test
    void socketAddressesHaveTheirFormatsLengthAndFamily() {
        assertNull(AddressFormat.malformed(Fi.SOCKADDR_IN, sockaddr(2, 16)));
        assertNull(AddressFormat.malformed(Fi.SOCKADDR_IN6, sockaddr(10, 28)));
        assertNull(AddressFormat.malformed(Fi.SOCKADDR, sockaddr(2, 16)));
        assertNull(AddressFormat.malformed(Fi.SOCKADDR, sockaddr(10, 28)));
        assertEquals("an FI_SOCKADDR_IN address of 3 bytes; a sockaddr_in has 16",
                AddressFormat.malformed(Fi.SOCKADDR_IN, new byte[] {2, 0, 1}));
        assertNull(AddressFormat.malformed(Fi.SOCKADDR_IN, sockaddr(2, 28)), "room to spare");
        assertEquals("an FI_SOCKADDR_IN address of family 10, not AF_INET (2)",
                AddressFormat.malformed(Fi.SOCKADDR_IN, sockaddr(10, 28)));
        assertEquals("an FI_SOCKADDR_IN address of family 10, not AF_INET (2)",
                AddressFormat.malformed(Fi.SOCKADDR_IN, sockaddr(10, 16)));
        assertEquals("an FI_SOCKADDR_IN6 address of 16 bytes; a sockaddr_in6 has 28",
                AddressFormat.malformed(Fi.SOCKADDR_IN6, sockaddr(10, 16)));
        assertEquals("an FI_SOCKADDR_IN6 address of family 2, not AF_INET6 (10)",
                AddressFormat.malformed(Fi.SOCKADDR_IN6, sockaddr(2, 28)));
        assertEquals("an FI_SOCKADDR address of 16 bytes; a sockaddr_in6 has 28",
                AddressFormat.malformed(Fi.SOCKADDR, sockaddr(10, 16)));
        assertEquals("an FI_SOCKADDR address of 1 bytes; a sockaddr_in has 16",
                AddressFormat.malformed(Fi.SOCKADDR, new byte[] {2}));
    }

    @Test
    void stringsAndOtherFormats() {
        assertNull(AddressFormat.malformed(Fi.ADDR_STR, "fi_shm://1234".getBytes()));
        assertEquals("an FI_ADDR_STR address that starts with its end (a 0 byte)",
                AddressFormat.malformed(Fi.ADDR_STR, new byte[] {0, 'x'}));
        assertNull(AddressFormat.malformed(17, new byte[] {1, 2, 3}), "a format this does not know");
        for (int format : new int[] {Fi.SOCKADDR_IN, Fi.ADDR_STR, 17}) {
            assertEquals("an empty address", AddressFormat.malformed(format, new byte[0]));
        }
    }
}
