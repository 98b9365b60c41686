package io.ofinet.rdma;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.Fi;

/**
 * A zero-byte receive kept posted ({@link KeptReceive}) on a data rail for the notices that follow
 * writes that carry no immediate data ({@link RailSet#noticeFor(long)}), and for the
 * sender's close confirmation sent behind its writes ({@link RailSet#confirmsCloseOnDataRails()});
 * posted where either applies ({@link RailSet#dataRailsTakeNotices()}). The control rails' posted
 * control receives take notices already.
 */
final class NoticeReceive extends KeptReceive {
    /** Receives kept posted per rail: a notice finding none waits in the provider's unexpected queue. */
    static final int PER_RAIL = 64;

    private final Endpoint on;
    /** The data rail it is posted on. */
    private final int rail;
    private final String what;

    NoticeReceive(RdmaEndpoint endpoint, Endpoint on, int rail, String what) {
        super(endpoint);
        this.on = on;
        this.rail = rail;
        this.what = what;
    }

    /** Posts {@link #PER_RAIL} notice receives on every data rail. */
    static void postAll(RdmaEndpoint endpoint) {
        for (int r = 0; r < endpoint.dataRails(); r++) {
            Endpoint on = endpoint.railSet.dataEndpoint(r);
            String what = "notice receive on data rail " + r;
            for (int i = 0; i < PER_RAIL; i++) {
                NoticeReceive receive = new NoticeReceive(endpoint, on, r, what);
                endpoint.engine.register(receive);
                receive.submit();
            }
        }
    }

    @Override
    int engineRail() {
        return rail;
    }

    @Override
    protected int post() throws FabricException {
        return on.recv(0, 0, 0, Fi.ADDR_UNSPEC, context());
    }

    @Override
    boolean arrived(long flags, long len, long data) {
        if ((flags & Fi.REMOTE_CQ_DATA) != 0) {
            endpoint.immediates.zeroByteMessage(rail, len, data);
        } else {
            endpoint.immediates.dropStray(rail, len);
        }
        return true;
    }

    @Override
    protected String describe() {
        return what;
    }
}
