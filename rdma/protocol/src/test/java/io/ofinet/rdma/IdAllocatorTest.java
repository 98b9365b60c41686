package io.ofinet.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ofinet.rdma.error.RdmaException;
import org.junit.jupiter.api.Test;

class IdAllocatorTest {

    @Test
    void idsRotateSoThatAClosedOnesIdComesBackLast() throws RdmaException {
        IdAllocator ids = new IdAllocator(4, "ids");
        assertEquals(0, ids.allocate());
        assertEquals(1, ids.allocate());
        ids.free(0);
        assertEquals(2, ids.allocate(), "not the freed 0");
        assertEquals(3, ids.allocate());
        assertEquals(0, ids.allocate(), "wraps to the free 0");
        RdmaException full = assertThrows(RdmaException.class, ids::allocate);
        assertEquals("all 4 ids of this endpoint are in use; close some first", full.getMessage());
        ids.free(2);
        assertEquals(2, ids.allocate());
    }
}
