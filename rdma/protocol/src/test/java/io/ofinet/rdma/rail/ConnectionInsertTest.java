package io.ofinet.rdma.rail;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.wire.HandshakeMessage;
import io.ofinet.rdma.wire.ProcessIdentity;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connection's addresses, inserted one rail after another: when one cannot be inserted, the uses
 * taken so far end, and the one its caller inserted stays the caller's to release.
 */
class ConnectionInsertTest {
    private static final long DATA0 = 10;
    private static final long CONTROL0_BY_CALLER = 20;
    private static final long CONTROL1 = 21;

    /** One data rail (engine rail 0) and {@code controls} control rails (engine rails 1, 2, ...). */
    private static HandshakeMessage connect(int controls) {
        List<byte[]> control = List.of(new byte[] {1}, new byte[] {2}, new byte[] {3}).subList(0, controls);
        return HandshakeMessage.connect(1, controls, 1, 5, 0x1000, 256, 64, new long[controls],
                List.of(new byte[] {9}), control, ProcessIdentity.NONE, 77, 0, 0);
    }

    /** Peers whose engine rail r inserts as handles[r] (0: not asked), and whose next rail refuses. */
    private static Peers peersRefusingRail(long... handles) throws Exception {
        Peers peers = mock(Peers.class);
        for (int rail = 0; rail < handles.length; rail++) {
            if (handles[rail] != 0) {
                when(peers.insert(eq(rail), any(), any())).thenReturn(handles[rail]);
            }
        }
        when(peers.insert(eq(handles.length), any(), any())).thenThrow(new FabricException("fi_av_insert",
                FiErrno.FI_EINVAL, "a malformed address"));
        return peers;
    }

    @Test
    void aFailedSecondControlRailReleasesWhatItInsertedAndLeavesTheCallersAddress() throws Exception {
        Peers peers = peersRefusingRail(DATA0, 0);
        assertThrows(FabricException.class, () -> Connection.inserted(peers, null, false, 3, connect(2),
                CONTROL0_BY_CALLER));
        verify(peers).release(0, DATA0);
        verify(peers, never()).release(1, CONTROL0_BY_CALLER);
    }

    @Test
    void withoutTheCallersAddressAFailedSecondControlRailReleasesTheFirst() throws Exception {
        Peers peers = peersRefusingRail(DATA0, CONTROL0_BY_CALLER + 100);
        assertThrows(FabricException.class, () -> Connection.inserted(peers, null, false, 3, connect(2),
                Connection.NOT_INSERTED));
        verify(peers).release(0, DATA0);
        verify(peers).release(1, CONTROL0_BY_CALLER + 100);
    }

    @Test
    void aFailedThirdControlRailReleasesTheSecondButNotTheCallers() throws Exception {
        Peers peers = peersRefusingRail(DATA0, 0, CONTROL1);
        assertThrows(FabricException.class, () -> Connection.inserted(peers, null, false, 3, connect(3),
                CONTROL0_BY_CALLER));
        verify(peers).release(0, DATA0);
        verify(peers).release(2, CONTROL1);
        verify(peers, never()).release(anyInt(), eq(CONTROL0_BY_CALLER));
        verify(peers, never()).release(eq(1), anyLong());
    }
}
