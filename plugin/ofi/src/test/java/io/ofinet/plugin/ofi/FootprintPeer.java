package io.ofinet.plugin.ofi;

import io.ofinet.fabric.ofi.NativeUsage;
import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetPlugin;
import io.ofinet.plugin.NetPlugins;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What an open communicator costs: {@code FootprintPeer PAIRS SECONDS} opens PAIRS connections of
 * this process to itself through the plugin API (a send and a receive communicator each, on one
 * endpoint, to one peer), and prints the heap after a full collection and the native bytes they
 * added, per communicator, before it closes them all; and first what the endpoint, its listen
 * communicator and its first peer (this process) cost.
 */
public final class FootprintPeer {
    private FootprintPeer() {
    }

    public static void main(String[] args) throws Exception {
        int pairs = Integer.parseInt(args[0]);
        long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[1])).toNanos();
        NetPlugin p = NetPlugins.load();
        p.init();
        ChurnPeer.settle(p);
        long initHeap = heap();
        long initNative = NativeUsage.allocatedBytes();
        Handles.ListenComm listen = p.listen(0);
        // One pair opened and closed first: what the endpoint makes once is not a communicator's.
        close(p, open(p, listen, 1, deadline));
        ChurnPeer.settle(p);
        long heap = heap();
        long nativeBytes = NativeUsage.allocatedBytes();
        System.out.println("footprint: the endpoint, its listen communicator and its first peer: heapBytes="
                + (heap - initHeap) + " nativeBytes=" + (nativeBytes - initNative));
        List<Object> comms = open(p, listen, pairs, deadline);
        ChurnPeer.settle(p);
        long heapPerComm = (heap() - heap) / (2L * pairs);
        long nativePerComm = (NativeUsage.allocatedBytes() - nativeBytes) / (2L * pairs);
        System.out.println("footprint: " + 2 * pairs + " communicators: heapBytesPerComm=" + heapPerComm
                + " nativeBytesPerComm=" + nativePerComm);
        close(p, comms);
        p.closeListen(listen);
        p.close();
    }

    private static List<Object> open(NetPlugin p, Handles.ListenComm listen, int pairs, long deadline)
            throws Exception {
        List<Object> comms = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            Handles.SendComm send = null;
            Handles.RecvComm recv = null;
            while (send == null || recv == null) {
                send = send != null ? send : p.connect(0, listen.handle(), ConnectConfig.DEFAULT);
                recv = recv != null ? recv : p.accept(listen);
                ChurnPeer.inTime(deadline, "connect and accept", i);
            }
            comms.add(send);
            comms.add(recv);
        }
        return comms;
    }

    private static void close(NetPlugin p, List<Object> comms) throws Exception {
        for (Object c : comms) {
            if (c instanceof Handles.SendComm s) {
                p.closeSend(s);
            } else {
                p.closeRecv((Handles.RecvComm) c);
            }
        }
    }

    private static long heap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
