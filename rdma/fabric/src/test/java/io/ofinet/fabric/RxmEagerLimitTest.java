package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RxmEagerLimitTest {
    @Test
    void theEnvironmentsLimitWhenItIsANumberElseTheDefaultOrNone() {
        assertEquals(64L << 20, RxmEagerLimit.parse(null), "unset: the binding sets the default");
        assertEquals(1048576, RxmEagerLimit.parse("1048576"));
        assertEquals(1048576, RxmEagerLimit.parse(" 0x100000 "));
        assertEquals(0, RxmEagerLimit.parse("16k"), "not a number: rxm keeps its own default");
        assertEquals(0, RxmEagerLimit.parse("-1"));
    }

    @Test
    void withoutDirectSendsOrDynamicBuffersRxmsLimitIsItsBufferSize() {
        assertEquals(64L << 20, RxmEagerLimit.bytes(java.util.Map.of()));
        assertEquals(16384, RxmEagerLimit.bytes(java.util.Map.of("FI_OFI_RXM_ENABLE_DIRECT_SEND", "0")),
                "rxm's own buffer size, which the binding leaves then");
        assertEquals(16384, RxmEagerLimit.bytes(java.util.Map.of("FI_OFI_RXM_ENABLE_DYN_RBUF", "Off")));
        assertEquals(4096, RxmEagerLimit.bytes(java.util.Map.of(RxmEagerLimit.VARIABLE, "4096")),
                "above the binding's buffer size, which the JVM's environment does not show");
        assertEquals(RxmBufferSize.DEFAULT, RxmEagerLimit.bytes(java.util.Map.of(RxmEagerLimit.VARIABLE, "512")));
        assertEquals(65536, RxmEagerLimit.bytes(java.util.Map.of("FI_OFI_RXM_ENABLE_DIRECT_SEND", "no",
                "FI_OFI_RXM_BUFFER_SIZE", "65536")));
        assertEquals(32768, RxmEagerLimit.bytes(java.util.Map.of(RxmEagerLimit.VARIABLE, "8192",
                "FI_OFI_RXM_BUFFER_SIZE", "32768")), "raised to the buffer size");
        assertEquals(1 << 20, RxmEagerLimit.bytes(java.util.Map.of(RxmEagerLimit.VARIABLE, "1048576",
                "FI_OFI_RXM_ENABLE_DIRECT_SEND", "1")));
    }
}
