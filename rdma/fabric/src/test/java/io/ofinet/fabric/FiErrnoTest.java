package io.ofinet.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FiErrnoTest {

    @Test
    void namesPositiveAndNegatedCodes() {
        assertEquals("FI_EAGAIN", FiErrno.name(FiErrno.FI_EAGAIN));
        assertEquals("FI_EAGAIN", FiErrno.name(-FiErrno.FI_EAGAIN));
        assertEquals("FI_ENOKEY", FiErrno.name(-266));
        assertEquals("FI_EAVAIL", FiErrno.name(259));
        assertEquals("error 9999", FiErrno.name(-9999));
        assertEquals("error 3", FiErrno.name(3));
    }

    @Test
    void exceptionNamesCallCodeAndDescription() {
        FabricException e = new FabricException("fi_mr_bind (provider tcp;ofi_rxm)", -38,
                "Function not implemented");
        assertEquals("fi_mr_bind (provider tcp;ofi_rxm) failed: FI_ENOSYS (Function not implemented)",
                e.getMessage());
        assertEquals(38, e.errno());
    }
}
