package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ErrorsTest {

    @Test
    void everyCategoryMapsToADistinctErrorResult() {
        Set<NetResult> seen = EnumSet.noneOf(NetResult.class);
        for (ErrorCategory category : ErrorCategory.values()) {
            NetResult result = Errors.resultOf(category);
            seen.add(result);
        }
        assertEquals(EnumSet.of(NetResult.SYSTEM_ERROR, NetResult.INTERNAL_ERROR,
                NetResult.INVALID_ARGUMENT, NetResult.INVALID_USAGE, NetResult.REMOTE_ERROR), seen);
        assertEquals(NetResult.REMOTE_ERROR, Errors.resultOf(ErrorCategory.REMOTE));
        assertEquals(NetResult.INVALID_USAGE, Errors.resultOf(ErrorCategory.INVALID_USAGE));
    }

    @Test
    void wrappingKeepsTheOperationMessageAndCause() {
        RdmaException cause = new RdmaException(ErrorCategory.REMOTE, "peer closed the connection");
        NetException e = Errors.toNetException("test", cause);
        assertEquals(NetResult.REMOTE_ERROR, e.result());
        assertEquals("test: peer closed the connection", e.getMessage());
        assertSame(cause, e.getCause());
    }

    @Test
    void anOperationTheProtocolNamedAlreadyIsNotRepeated() {
        RdmaException cause = new RdmaException(ErrorCategory.INVALID_ARGUMENT, "irecv: 2 buffers, but 1 tags");
        assertEquals("irecv: 2 buffers, but 1 tags", Errors.toNetException("irecv", cause).getMessage());
        assertEquals("test: irecv: 2 buffers, but 1 tags", Errors.toNetException("test", cause).getMessage());
    }
}
