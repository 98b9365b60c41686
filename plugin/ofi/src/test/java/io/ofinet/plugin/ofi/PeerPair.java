package io.ofinet.plugin.ofi;

import io.ofinet.plugin.ConnectConfig;
import io.ofinet.plugin.Handles;
import io.ofinet.plugin.NetException;
import io.ofinet.plugin.NetPlugin;

/** Both directions between this process and a peer: a send communicator to it and one accepted from it. */
record PeerPair(Handles.SendComm send, Handles.RecvComm recv) {

    /**
     * Connects to the peer's listen {@code handle} and accepts the peer's connection on
     * {@code listen}, in whichever order they complete; {@code stillInTime} runs at every step
     * (and ends the process when the test's time is up).
     */
    static PeerPair connect(NetPlugin p, Handles.ListenComm listen, byte[] handle, Runnable stillInTime)
            throws NetException {
        Handles.SendComm send = null;
        Handles.RecvComm recv = null;
        while (send == null || recv == null) {
            if (send == null) {
                send = p.connect(0, handle, ConnectConfig.DEFAULT);
            }
            if (recv == null) {
                recv = p.accept(listen);
            }
            stillInTime.run();
        }
        return new PeerPair(send, recv);
    }
}
