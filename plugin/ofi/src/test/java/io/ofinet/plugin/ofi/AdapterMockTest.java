package io.ofinet.plugin.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.mem.MemProvider;
import io.ofinet.mr.MrHandle;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetResult;
import io.ofinet.rdma.RdmaEndpoint;
import io.ofinet.rdma.error.ErrorCategory;
import io.ofinet.rdma.error.RdmaException;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The adapter over a mocked protocol: error mapping, request pooling and staleness. */
class AdapterMockTest {
    private final OfiNetPlugin plugin = new OfiNetPlugin(MemProvider::create, PluginFixture::layout);
    private final SendComm inner = mock(SendComm.class);
    private final RdmaEndpoint endpoint = mock(RdmaEndpoint.class);
    private final OfiHandles.Send comm = new OfiHandles.Send(plugin.opening(), inner, endpoint);

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

    @Test
    void aProgressFailureUnderAnUnfinishedRequestLeavesItAndItsMemoryInUse() throws Exception {
        OfiHandles.Mr mr = new OfiHandles.Mr(plugin.opening(), mock(MrHandle.class), endpoint);
        SendRequest writing = mock(SendRequest.class);
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenReturn(writing);
        when(writing.test(any())).thenThrow(new RdmaException(ErrorCategory.SYSTEM,
                "reading the completion queue of rail 0: fi_cq_read failed")).thenReturn(true);
        when(writing.inUse()).thenReturn(true); // the protocol did not end it: its writes are in flight
        Handles.Request request = plugin.isend(comm, 0x1000, 64, 1, mr);
        NetException e = assertThrows(NetException.class, () -> plugin.test(request, null));
        assertEquals(NetResult.SYSTEM_ERROR, e.result());
        assertEquals(1, comm.outstanding(), "still outstanding");
        assertEquals("deregMr: the memory handle is used by 1 outstanding request; nothing was deregistered"
                + " (test them to completion or close their communicator first)",
                assertThrows(NetException.class, () -> plugin.deregMr(comm, mr)).getMessage());
        assertEquals(true, plugin.test(request, null), "tested again, it ends");
        assertEquals(0, comm.outstanding());
        plugin.deregMr(comm, mr);
        verify(endpoint).deregisterUserBuffer(mr.inner);
    }

    @Test
    void memoryStaysInUseUntilTheCloseOfItsCommunicatorHasReturned() throws Exception {
        OfiHandles.Mr mr = new OfiHandles.Mr(plugin.opening(), mock(MrHandle.class), endpoint);
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenReturn(mock(SendRequest.class));
        plugin.isend(comm, 0x1000, 64, 1, mr);
        List<String> duringClose = new ArrayList<>();
        doAnswer(call -> { // the protocol's close drains the writes in flight
            duringClose.add(assertThrows(NetException.class, () -> plugin.deregMr(comm, mr)).getMessage());
            return null;
        }).when(inner).close();
        plugin.closeSend(comm);
        assertEquals(List.of("deregMr: the memory handle is used by 1 outstanding request; nothing was deregistered"
                + " (test them to completion or close their communicator first)"), duringClose);
        plugin.deregMr(comm, mr);
        verify(endpoint).deregisterUserBuffer(mr.inner);
    }

    @Test
    void aPostUnderWayOnAnotherThreadKeepsItsMemoryFromBeingDeregistered() throws Exception {
        OfiHandles.Mr mr = new OfiHandles.Mr(plugin.opening(), mock(MrHandle.class), endpoint);
        CountDownLatch posting = new CountDownLatch(1);
        CountDownLatch refused = new CountDownLatch(1);
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenAnswer(call -> {
            posting.countDown();
            refused.await(); // the protocol posts the send with the registration
            return mock(SendRequest.class);
        });
        AtomicReference<Handles.Request> request = new AtomicReference<>();
        Thread poster = new Thread(() -> {
            try {
                request.set(plugin.isend(comm, 0x1000, 64, 1, mr));
            } catch (NetException e) {
                throw new IllegalStateException(e);
            }
        });
        poster.start();
        posting.await();
        NetException e = assertThrows(NetException.class, () -> plugin.deregMr(comm, mr));
        refused.countDown();
        poster.join();
        assertEquals("deregMr: the memory handle is used by 1 outstanding request; nothing was deregistered (test"
                + " them to completion or close their communicator first)", e.getMessage());
        assertNotNull(request.get());
        assertEquals(1, mr.uses());
        assertEquals(false, mr.closed(), "a refused deregistration leaves the handle usable");
        verify(endpoint, never()).deregisterUserBuffer(any());
    }

    @Test
    void aPostTheProtocolRefusesDefersOrFailsInCountsNoUse() throws Exception {
        OfiHandles.Mr mr = new OfiHandles.Mr(plugin.opening(), mock(MrHandle.class), endpoint);
        when(inner.isend(anyLong(), anyLong(), anyInt(), any())).thenReturn(null)
                .thenThrow(new RdmaException(ErrorCategory.REMOTE, "the peer is gone"))
                .thenThrow(new IllegalStateException("a bug of the protocol's"));
        assertEquals(null, plugin.isend(comm, 0x1000, 64, 1, mr));
        assertThrows(NetException.class, () -> plugin.isend(comm, 0x1000, 64, 1, mr));
        assertThrows(IllegalStateException.class, () -> plugin.isend(comm, 0x1000, 64, 1, mr));
        assertEquals(0, mr.uses());
        plugin.deregMr(comm, mr);
    }
}
