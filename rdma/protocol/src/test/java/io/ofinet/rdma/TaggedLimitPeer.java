package io.ofinet.rdma;

import io.ofinet.fabric.ofi.OfiProvider;
import io.ofinet.fabric.testing.HostBuffer;
import io.ofinet.mr.MrHandle;
import io.ofinet.rdma.op.OpCounts;
import io.ofinet.rdma.recv.RecvComm;
import io.ofinet.rdma.recv.RecvRequest;
import io.ofinet.rdma.send.SendComm;
import io.ofinet.rdma.send.SendRequest;
import java.util.Arrays;

/**
 * {@link TaggedEagerLimitIT}'s child: two endpoints over {@code tcp;ofi_rxm} on loopback in one
 * process move a 512 KiB and a 2 MiB message, each into a buffer of its size, check every byte,
 * and print how many went as tagged messages and how many were written ("tagged N written M").
 */
public final class TaggedLimitPeer {
    private TaggedLimitPeer() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {512 << 10, 2 << 20};
        try (Device device = Device.open(new OfiProvider(), Layouts.device("tcp;ofi_rxm", new String[] {"lo"}, ""));
                HostBuffer src = new HostBuffer(2 << 20).pattern(3);
                HostBuffer dst = new HostBuffer(2 << 20)) {
            ConnectionTest.Loopback pair = ConnectionTest.Loopback.open(device);
            SendComm send = pair.send();
            RecvComm recv = pair.recv();
            MrHandle srcMr = pair.a().registerUserBuffer(src.address, src.size);
            MrHandle dstMr = pair.b().registerUserBuffer(dst.address, dst.size);
            for (int size : sizes) {
                RecvRequest r = recv.irecv(1, new long[] {dst.address}, new long[] {size}, new int[] {1},
                        new MrHandle[] {dstMr});
                SendRequest s = send.isend(src.address, size, 1, srcMr);
                boolean sent = false;
                boolean received = false;
                long deadline = System.nanoTime() + 20_000_000_000L;
                while ((!sent || !received) && System.nanoTime() < deadline) {
                    sent = sent || s.test(null);
                    received = received || r.test(null);
                }
                if (!sent || !received || !Arrays.equals(src.bytes(0, size), dst.bytes(0, size))) {
                    throw new AssertionError(size + " bytes did not arrive whole");
                }
            }
            OpCounts counts = pair.a().counts();
            System.out.println("tagged " + counts.taggedSent() + " written " + counts.writesNoticed());
            srcMr.close();
            dstMr.close();
            send.close();
            recv.close();
        }
    }
}
