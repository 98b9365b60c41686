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
}
