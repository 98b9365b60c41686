package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import org.junit.jupiter.api.Test;

/** The adapter over a mocked protocol: error mapping, request pooling and staleness. */
class AdapterMockTest {
    private final OfiNetPlugin plugin = new OfiNetPlugin(MemProvider::create, PluginFixture::layout);
    private final SendComm inner = mock(SendComm.class);
    private final OfiHandles.Send comm = new OfiHandles.Send(plugin, inner, mock(RdmaEndpoint.class));

    @Test
    void protocolErrorsBecomeNetExceptionsWithTheirResultAndCause() throws Exception {
        RdmaException remote = new RdmaException(ErrorCategory.REMOTE, "the peer sent nothing for 300 ms");
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenThrow(remote);
        NetException e = assertThrows(NetException.class, () -> plugin.isend(comm, 0x1000, 64, 1, null));
        assertEquals(NetResult.REMOTE_ERROR, e.result());
        assertEquals("isend: the peer sent nothing for 300 ms", e.getMessage());
        assertSame(remote, e.getCause());
    }

    @Test
    void noProtocolRequestMeansRetryNotAnError() throws Exception {
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenReturn(null);
        assertEquals(null, plugin.isend(comm, 0x1000, 64, 1, null));
        assertEquals(0, comm.outstanding(), "no pooled request taken");
    }

    @Test
    void aRequestReturnsToThePoolWhenDoneOrFailedAndIsThenStale() throws Exception {
        SendRequest done = mock(SendRequest.class);
        SendRequest failing = mock(SendRequest.class);
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenReturn(done, failing);
        when(done.test(any())).thenReturn(false, true);
        when(failing.test(any())).thenThrow(new RdmaException(ErrorCategory.INVALID_USAGE, "no buffer has tag 2"));
        Handles.Request first = plugin.isend(comm, 0x1000, 64, 1, null);
        Handles.Request second = plugin.isend(comm, 0x1000, 64, 2, null);
        assertEquals(2, comm.outstanding());
        assertEquals(false, plugin.test(first, null));
        assertEquals(true, plugin.test(first, null));
        NetException e = assertThrows(NetException.class, () -> plugin.test(second, null));
        assertEquals(NetResult.INVALID_USAGE, e.result());
        assertEquals(0, comm.outstanding(), "both returned to the pool");
        assertEquals(NetResult.INVALID_USAGE, assertThrows(NetException.class, () -> plugin.test(first, null)).result());
        assertEquals(NetResult.INVALID_USAGE, assertThrows(NetException.class, () -> plugin.test(second, null)).result());
    }
}
