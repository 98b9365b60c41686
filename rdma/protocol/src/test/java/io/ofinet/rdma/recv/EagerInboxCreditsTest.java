package io.ofinet.rdma.recv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.rdma.comm.CommParts;
import io.ofinet.rdma.op.Ops;
import io.ofinet.rdma.op.RmaOp;
import io.ofinet.rdma.rail.Connection;
import io.ofinet.rdma.wire.Immediate;
import io.ofinet.rdma.wire.Limits;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The credits a receiver returns: in batches once an operation is free, and at most
 * {@link Limits#CREDITS} a signal, however many a sender that ignores its credits made due while
 * no operation was free. A signal carries the count of all returned so far, modulo 2^10.
 */
class EagerInboxCreditsTest {
    private final Ops ops = mock(Ops.class);
    private final Connection connection = mock(Connection.class);
    private final List<Integer> returned = new ArrayList<>();
    private final EagerInbox inbox;

    EagerInboxCreditsTest() {
        RecvComm comm = mock(RecvComm.class);
        CommParts parts = mock(CommParts.class);
        when(parts.ops()).thenReturn(ops);
        when(comm.connection()).thenReturn(connection);
        when(connection.peerCommId()).thenReturn(7);
        doAnswer(call -> returned.add(Immediate.seq(call.getArgument(2)))).when(connection)
                .sendImmediate(any(), anyString(), anyInt(), any());
        inbox = new EagerInbox(comm, parts);
    }

    @Test
    void creditsGoBackInBatchesOnceAnOperationIsFree() {
        when(ops.acquire()).thenReturn(mock(RmaOp.class));
        for (int i = 0; i < EagerInbox.CREDIT_BATCH - 1; i++) {
            inbox.used();
        }
        verify(connection, never()).sendImmediate(any(), anyString(), anyInt(), any());
        inbox.used();
        assertEquals(List.of(EagerInbox.CREDIT_BATCH), returned);
    }

    @Test
    void creditsMadeDueWhileNoOperationWasFreeGoBackAtMostAWindowASignal() {
        int due = 1100; // past what the signal's 10-bit field holds
        for (int i = 0; i < due; i++) {
            inbox.used(); // no operation free: each stays due
        }
        assertTrue(returned.isEmpty());
        when(ops.acquire()).thenReturn(mock(RmaOp.class));
        int mask = Limits.SEQ_MASK;
        int sum = 0;
        for (int i = 0; i < due && sum < due; i++) {
            int before = returned.isEmpty() ? 0 : returned.get(returned.size() - 1);
            inbox.returnCredits(1);
            int batch = (returned.get(returned.size() - 1) - before) & mask;
            assertTrue(batch > 0 && batch <= Limits.CREDITS, "at most a window a signal: " + returned);
            sum += batch;
        }
        assertEquals(due, sum, "every credit went back");
        assertEquals(due & mask, returned.get(returned.size() - 1), "the count modulo 2^10");
    }
}
